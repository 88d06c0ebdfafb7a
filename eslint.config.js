// One lint configuration for every workspace: typescript-eslint's strict type-checked preset.
import js from '@eslint/js';
import { defineConfig } from 'eslint/config';
import { createNodeResolver, importX } from 'eslint-plugin-import-x';
import tseslint from 'typescript-eslint';

/**
 * The agent's folders by concern and the imports allowed between them,
 * checked on the path each import resolves to (so `export ... from` and a
 * dynamic `import()` count, and a relative path cannot dodge the rule):
 * the core (ponte/) and the room profile (salas/) know no A2A, HTTP server,
 * database or network client; the MCP connections (mcp/) know no caller
 * of theirs; the lifecycle (ciclo/) knows no front, console, connection or
 * profile; the stores know no A2A adapter, HTTP front, console or
 * profile. An import the resolver cannot find is skipped by the rule, so
 * the resolver maps a `.js` import to the `.ts` file it names, as tsc does.
 */
const agente = (pasta) => `agente/src/${pasta}`;
const fora = (...pastas) => pastas.map((pasta) => `**/agente/src/${pasta}/**`);
/** Of packages, only the MCP client and zod; compartilhado resolves to its own folder and Node's built-ins to no file, so both pass. */
const SO_MCP_E_ZOD = { from: '**/node_modules/**', except: ['**/node_modules/@modelcontextprotocol/client/**', '**/node_modules/zod/**'] };
const fronteiras = [
  {
    target: agente('ponte'),
    from: 'agente/src/**',
    except: [...fora('ponte'), '**/agente/src/mcp/conexao.ts', '**/agente/src/mcp/naoEnviada.ts'],
    message: 'The core (ponte/) imports only ponte/ and what a connection says of a call: mcp/conexao.ts and mcp/naoEnviada.ts.',
  },
  { target: agente('ponte'), ...SO_MCP_E_ZOD, message: 'The core (ponte/) imports no package but the MCP client and zod.' },
  {
    target: agente('salas'),
    from: 'agente/src/**',
    except: fora('salas', 'ponte', 'mcp'),
    message: 'The room profile (salas/) imports only ponte/ and mcp/.',
  },
  { target: agente('salas'), ...SO_MCP_E_ZOD, message: 'The room profile (salas/) imports no package but the MCP client and zod.' },
  {
    target: agente('mcp'),
    from: ['a2a', 'armazenamento', 'http', 'console', 'push', 'salas', 'ponte'].map(agente),
    message: 'The MCP connections (mcp/) know nothing of who calls them.',
  },
  {
    target: agente('ciclo'),
    from: ['http', 'console', 'mcp', 'salas', 'grpc'].map(agente),
    message: 'The Task lifecycle (ciclo/) writes Tasks, steps and events: it knows no HTTP front, console, MCP connection or profile.',
  },
  {
    target: agente('armazenamento'),
    from: ['a2a', 'http', 'console', 'salas'].map(agente),
    message: 'The stores (armazenamento/) import no A2A adapter, HTTP front, console or profile.',
  },
];

export default defineConfig(
  { ignores: ['**/dist/', 'bench/resultados/'] },
  js.configs.recommended,
  tseslint.configs.strictTypeChecked,
  { languageOptions: { parserOptions: { projectService: true, tsconfigRootDir: import.meta.dirname } } },
  {
    rules: {
      // A number prints unambiguously in a template; the other types stay refused.
      '@typescript-eslint/restrict-template-expressions': ['error', { allowNumber: true }],
      // A one-line callback that calls a void function (`() => resolver()`) is not a confusing return.
      '@typescript-eslint/no-confusing-void-expression': ['error', { ignoreArrowShorthand: true }],
      // node:test's describe/it return promises the runner itself awaits.
      '@typescript-eslint/no-floating-promises': [
        'error',
        {
          allowForKnownSafeCalls: [
            { from: 'package', package: 'node:test', name: ['describe', 'it', 'test', 'before', 'after', 'beforeEach', 'afterEach'] },
          ],
        },
      ],
    },
  },
  {
    files: ['agente/src/**/*.ts'],
    plugins: { 'import-x': importX },
    settings: { 'import-x/resolver-next': [createNodeResolver({ extensionAlias: { '.js': ['.ts', '.js'] } })] },
    rules: { 'import-x/no-restricted-paths': ['error', { basePath: import.meta.dirname, zones: fronteiras }] },
  },
  { files: ['**/*.js'], extends: [tseslint.configs.disableTypeChecked] },
);
