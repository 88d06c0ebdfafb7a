/**
 * Runs before `npm start` and `npm test` (their pre-scripts): on a Node older
 * than package.json's engines allow, a dependency fails as it loads with an
 * error that names no version (undici 8 on Node 20 binds a zlib function
 * Node 20 lacks), so the version is named here first. Only the floor is
 * checked: a line newer than those tested is not known to break.
 */
import { readFileSync } from 'node:fs';

const { engines } = JSON.parse(readFileSync(new URL('../package.json', import.meta.url), 'utf8')) as { engines: { node: string } };
// The range names its oldest line first: its first version is the floor.
const piso = /\d+\.\d+\.\d+/.exec(engines.node)?.[0] ?? '0.0.0';
const numeros = (versao: string) => versao.split('.').map(Number);
const [maior = 0, menor = 0, correcao = 0] = numeros(process.versions.node);
const [pisoMaior = 0, pisoMenor = 0, pisoCorrecao = 0] = numeros(piso);
const antiga = maior !== pisoMaior ? maior < pisoMaior : menor !== pisoMenor ? menor < pisoMenor : correcao < pisoCorrecao;

if (antiga) {
  process.stderr.write(
    `A Ponte roda em Node ${engines.node} (engines do package.json); este e o ${process.version}. Ponha um Node 22 ou 24 no PATH.\n`,
  );
  process.exit(1);
}
