/**
 * `npm run imagem`: builds the project's Containerfile here, with no
 * registry. The images it and compose.yaml name from Docker Hub are made
 * locally first, as stand-ins with those exact names, on Debian bookworm
 * minbase from Debian's own packages (mmdebstrap):
 * docker.io/library/node:22-bookworm-slim with Node.js from the npm
 * registry's `node` package (the binary this script runs on) and npm from
 * the registry; docker.io/library/postgres:15-bookworm with Debian's
 * PostgreSQL 15 and an entrypoint that does what compose.yaml asks of the
 * official one (scripts/substitutos/postgres/). Then the real Containerfile
 * is built with --pull=never, as a user builds it with a registry. Needs
 * podman, runc and mmdebstrap (`.ci/run` installs them); podman runs with
 * runc and no default ulimits, the only settings this machine's cgroups
 * accept (set in a private containers.conf).
 *
 *   npm run imagem                   # a-ponte:1.0.0
 *   npm run imagem -- --base-pronta  # reuse the stand-ins built before
 */
import { execFileSync, type ExecFileSyncOptions } from 'node:child_process';
import { copyFileSync, cpSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';

export const IMAGEM = 'localhost/a-ponte:1.0.0';
const BASE = 'docker.io/library/node:22-bookworm-slim';
export const POSTGRES = 'docker.io/library/postgres:15-bookworm';
const RAIZ_DO_DEBIAN = 'localhost/a-ponte-raiz:bookworm';
const RAIZ = fileURLToPath(new URL('../', import.meta.url));

/** podman's settings for this machine: runc (crun fails on its cgroups) and no default ulimits (nproc is refused). */
export function ambienteDoPodman(pasta: string): NodeJS.ProcessEnv {
  const conf = join(pasta, 'containers.conf');
  writeFileSync(conf, '[containers]\ndefault_ulimits = []\n[engine]\nruntime = "runc"\n');
  return { ...process.env, CONTAINERS_CONF: conf };
}

const podman = (args: string[], env: NodeJS.ProcessEnv, opcoes: ExecFileSyncOptions = {}) =>
  execFileSync('podman', args, { env, stdio: 'inherit', ...opcoes });

/** The stand-ins. The base: Debian minbase, this Node.js, npm, and the machine's extra CA bundle when it has one (a TLS-inspecting proxy). */
function construirSubstitutos(pasta: string, env: NodeJS.ProcessEnv): void {
  const raiz = join(pasta, 'raiz.tar');
  execFileSync('mmdebstrap', ['--variant=minbase', '--include=ca-certificates', 'bookworm', raiz], { stdio: 'inherit' });
  podman(['import', raiz, RAIZ_DO_DEBIAN], env, { stdio: ['ignore', 'ignore', 'inherit'] });
  const contexto = join(pasta, 'base');
  mkdirSync(contexto);
  cpSync(process.execPath, join(contexto, 'node'));
  const versaoDoNpm = execFileSync('npm', ['--version'], { encoding: 'utf8' }).trim();
  execFileSync('npm', ['pack', `npm@${versaoDoNpm}`, '--pack-destination', contexto], { stdio: ['ignore', 'ignore', 'inherit'] });
  const extra = process.env.NODE_EXTRA_CA_CERTS;
  if (extra) copyFileSync(extra, join(contexto, 'ca.crt'));
  writeFileSync(
    join(contexto, 'Containerfile'),
    [
      `FROM ${RAIZ_DO_DEBIAN}`,
      'COPY node /usr/local/bin/node',
      `ADD npm-${versaoDoNpm}.tgz /usr/local/lib/node_modules/`,
      'RUN mv /usr/local/lib/node_modules/package /usr/local/lib/node_modules/npm' +
        ' && ln -s ../lib/node_modules/npm/bin/npm-cli.js /usr/local/bin/npm && ln -s ../lib/node_modules/npm/bin/npx-cli.js /usr/local/bin/npx',
      ...(extra ? ['COPY ca.crt /usr/local/share/a-ponte/ca.crt', 'ENV NODE_EXTRA_CA_CERTS=/usr/local/share/a-ponte/ca.crt'] : []),
      'CMD ["node"]',
      '',
    ].join('\n'),
  );
  podman(['build', '--pull=never', '--network=host', '-t', BASE, contexto], env);
  const substituto = join(RAIZ, 'scripts', 'substitutos', 'postgres');
  podman(['build', '--pull=never', '--network=host', '--build-arg', `RAIZ=${RAIZ_DO_DEBIAN}`, '-t', POSTGRES, substituto], env);
}

/** Builds the stand-ins (unless `basePronta`) and then the project's Containerfile; returns the image's name. */
export function construirImagem({ basePronta = false } = {}): string {
  const pasta = mkdtempSync(join(tmpdir(), 'ponte-imagem-'));
  try {
    const env = ambienteDoPodman(pasta);
    if (!basePronta) construirSubstitutos(pasta, env);
    // --format docker keeps the HEALTHCHECK (the OCI format has no field for it).
    podman(['build', '--format', 'docker', '--pull=never', '--network=host', '-t', IMAGEM, RAIZ], env);
    return IMAGEM;
  } finally {
    rmSync(pasta, { recursive: true, force: true });
  }
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  const { values } = parseArgs({ options: { 'base-pronta': { type: 'boolean', default: false } } });
  const inicio = performance.now();
  construirImagem({ basePronta: values['base-pronta'] });
  process.stderr.write(`imagem ${IMAGEM} construida em ${((performance.now() - inicio) / 1000).toFixed(0)} s\n`);
}
