/**
 * The docs against the tree, so a rename that forgets the prose fails here
 * (test/apoio/documentacao.ts says exactly what counts): README.md and
 * every docs/*.md link, name a path and name code only as it exists now;
 * the README stays a front door with the sections the course requires; its
 * configuration table and the variables the processes read agree. Reads
 * files only: no process, no network.
 */
import assert from 'node:assert/strict';
import { readdirSync, readFileSync } from 'node:fs';
import { describe, it } from 'node:test';
import { fileURLToPath } from 'node:url';
import { ancoras, conferir, lerArvore, slug } from './apoio/documentacao.js';

const RAIZ = fileURLToPath(new URL('..', import.meta.url));
const ler = (arquivo: string) => readFileSync(new URL(`../${arquivo}`, import.meta.url), 'utf8');
const DOCS = [
  'README.md',
  ...readdirSync(new URL('../docs/', import.meta.url))
    .filter((nome) => nome.endsWith('.md'))
    .sort()
    .map((nome) => `docs/${nome}`),
];
const arvore = lerArvore(RAIZ);
const linha = ({ onde, nome, motivo }: { onde: string; nome: string; motivo: string }) => `${onde}: \`${nome}\`: ${motivo}`;

/** The course's required sections of the README. */
const SECOES = ['## Como rodar', '## Onde a ponte acontece', '## Decisões técnicas', '## Saída do validador'];
const MAXIMO_DE_LINHAS = 300;

/** The processes' own code: where the variables they read are named. */
const PROCESSOS = ['agente/src', 'servidor-mcp/src', 'compartilhado/src'];

/** A README section's text, from its heading to the next one of its level. */
function secao(texto: string, titulo: string): string {
  const inicio = texto.indexOf(`\n${titulo}\n`);
  assert.notEqual(inicio, -1, `README.md sem a secao "${titulo}"`);
  const fim = texto.indexOf('\n## ', inicio + titulo.length + 2);
  return texto.slice(inicio, fim === -1 ? undefined : fim);
}

describe('documentacao', () => {
  it('README.md and docs/*.md link, name paths and name code only as the tree has them', () => {
    assert.ok(DOCS.length > 5, `docs lidos: ${DOCS.join(', ')}`);
    assert.deepEqual(
      DOCS.flatMap((arquivo) => conferir(arquivo, ler(arquivo), arvore)).map(linha),
      [],
      'nomes que o codigo nao tem mais (arquivo:linha, o nome, o motivo)',
    );
  });

  it('reports a planted stale name, path, file, call, link and anchor, and nothing in a fenced block', () => {
    const plantado = [
      'A pausa volta em `Ponte.desfazer`, escrita em `agente/src/nao-existe.ts`',
      'por `pausas.abrir(...)` e `sumiu.ts`, com `naoExiste()`.',
      'Veja [a tabela](docs/arquitetura.md#nao-ha), [outro](docs/nao-existe.md) e [aqui](#sem-titulo).',
      '',
      '```ts',
      'Ponte.desfazer(); // a fenced block is code, not prose: not checked',
      '```',
      '',
      '## Um titulo',
      '',
      'Vivos: `Ponte.escolher`, `ciclo.receber`, `Ciclo.concluir`, `ClienteMcp.chamar`, `estadoDo()`,',
      '`agente/src/ciclo/ciclo.ts`, `ciclo.ts`, `agente/dist/main.js`, `AgentCard.toJSON(card)`, [o titulo](#um-titulo),',
      '[a tabela](docs/arquitetura.md#a-tabela).',
    ].join('\n');
    const achados = conferir('README.md', plantado, arvore);
    assert.deepEqual(
      achados.map(({ onde, nome }) => `${onde} ${nome}`),
      [
        'README.md:1 Ponte.desfazer',
        'README.md:1 agente/src/nao-existe.ts',
        'README.md:2 pausas.abrir(...)',
        'README.md:2 sumiu.ts',
        'README.md:2 naoExiste()',
        'README.md:3 docs/arquitetura.md#nao-ha',
        'README.md:3 docs/nao-existe.md',
        'README.md:3 #sem-titulo',
      ],
      achados.map(linha).join('\n'),
    );
    assert.match(
      linha(achados[0] ?? { onde: '', nome: '', motivo: '' }),
      /^README\.md:1: `Ponte\.desfazer`: Ponte nao tem desfazer \(agente\/src\/ponte\/ponte\.ts\)$/,
    );
  });

  it('makes heading ids as GitHub does', () => {
    assert.equal(slug('Decisões técnicas'), 'decisões-técnicas');
    assert.equal(slug('Idempotencia de reservar_sala'), 'idempotencia-de-reservar_sala');
    assert.equal(slug('O que o SDK não faz nos streams (`@a2a-js/sdk` 1.3.0)'), 'o-que-o-sdk-não-faz-nos-streams-a2a-jssdk-130');
    assert.equal(slug('Ids de skill: sempre `<servidor>.<tool>`'), 'ids-de-skill-sempre-servidortool');
    assert.deepEqual([...ancoras('# A\n\n## A\n\n```\n# nao e titulo\n```\n### A b\n')], ['a', 'a-1', 'a-b']);
  });

  it('README.md is a front door: under 300 lines, with the four sections the course requires', () => {
    const readme = ler('README.md');
    const linhas = readme.split('\n').length - (readme.endsWith('\n') ? 1 : 0);
    assert.ok(
      linhas <= MAXIMO_DE_LINHAS,
      `README.md tem ${String(linhas)} linhas; o limite e ${String(MAXIMO_DE_LINHAS)}: o resto vai para docs/`,
    );
    for (const titulo of SECOES) assert.ok(readme.includes(`\n${titulo}\n`), `README.md sem a secao "${titulo}"`);
  });

  it('the README configuration table names every variable the processes read, and only those', () => {
    const codigo = arvore.fontes
      .filter(({ arquivo }) => PROCESSOS.some((pasta) => arquivo.startsWith(`${pasta}/`)))
      .map((fonte) => fonte.codigo)
      .join('\n');
    // `env.NOME`, or a reader given the environment and the name: `lerPorta(env, 'AGENTE_PORT', 7300)`.
    const lidas = [...codigo.matchAll(/\benv\.([A-Z][A-Z0-9_]+)|\(\s*env\s*,\s*'([A-Z][A-Z0-9]*_[A-Z0-9_]+)'/g)].map(
      ([, direto, lida]) => direto ?? lida ?? '',
    );
    // A name made per signal, env[`OTEL_${sinal}_EXPORTER`]: a pattern the table must name an instance of.
    const moldes = [...codigo.matchAll(/\benv\[`([A-Z][A-Z0-9_]*(?:\$\{[^}]+\}[A-Z0-9_]*)+)`\]/g)].map(
      ([, molde = '']) => new RegExp(`^${molde.replace(/\$\{[^}]+\}/g, '[A-Z]+')}$`),
    );
    assert.ok(lidas.includes('REQUEST_STATE_SECRET') && moldes.length > 0, `variaveis lidas: ${lidas.join(', ')}`);
    const tabela = secao(ler('README.md'), '## Configuração');
    const citadas = [...tabela.matchAll(/`([A-Z][A-Z0-9]*_[A-Z0-9_]+)`/g)].map(([, nome = '']) => nome);
    const faltam = [
      ...lidas.filter((nome) => !citadas.includes(nome)),
      ...moldes.filter((molde) => !citadas.some((nome) => molde.test(nome))).map(String),
    ];
    assert.deepEqual([...new Set(faltam)].sort(), [], 'variaveis lidas pelo codigo que a tabela de README.md "## Configuração" nao cita');
    // A name the code keeps as a string before reading it (`env[nome]`) is read too.
    const sobram = citadas.filter(
      (nome) => !lidas.includes(nome) && !moldes.some((molde) => molde.test(nome)) && !codigo.includes(`'${nome}'`),
    );
    assert.deepEqual([...new Set(sobram)].sort(), [], `variaveis da tabela que nenhum arquivo de ${PROCESSOS.join(', ')} le`);
  });
});
