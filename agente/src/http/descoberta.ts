/**
 * What the agent publishes besides its card: the AI catalog and the Agent
 * Skills index with the SKILL.md it points to. Every URL comes from the same
 * configuration as the card; the digest is of the exact bytes served.
 */
import { createHash } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { FORMATOS, SKILLS } from '../salas/intencao.js';

export const CAMINHOS = {
  card: '/.well-known/agent-card.json',
  catalogo: '/.well-known/ai-catalog.json',
  indiceDeSkills: '/.well-known/agent-skills/index.json',
} as const;

const caminhoDaSkill = (id: string) => `/.well-known/agent-skills/${id}/SKILL.md`;

/** One SKILL.md per A2A skill, with the line the index shows for it. */
const DESCRICOES_DAS_SKILLS: Readonly<Record<(typeof SKILLS)[keyof typeof SKILLS], string>> = {
  [SKILLS.reservar]:
    'Como reservar uma sala pelo agente A2A Central de Salas: formato do pedido (texto ou dados), a pausa com alternativas, escolha= e os erros.',
  [SKILLS.listar]: 'Como listar as salas da Hill Valley Tech (capacidade e recursos) pelo agente A2A Central de Salas.',
  [SKILLS.consultar]: 'Como saber se uma sala esta livre num intervalo, e quais reservas o ocupam, pelo agente A2A Central de Salas.',
};

export const CAMINHO_DO_SERVER_CARD_MCP = '/.well-known/mcp/server-card.json';

export const LINKS = `<${CAMINHOS.catalogo}>; rel="ai-catalog", <${CAMINHOS.indiceDeSkills}>; rel="agent-skills"`;

export interface Documento {
  readonly tipo: string;
  readonly corpo: string | Buffer;
}

/** Path -> document, for every public document the agent serves. */
export function publicar(card: object, urlPublica: URL, mcpUrl: URL): ReadonlyMap<string, Documento> {
  const skills = Object.entries(DESCRICOES_DAS_SKILLS).map(([id, description]) => ({
    id,
    description,
    corpo: readFileSync(new URL(`../skills/${id}/SKILL.md`, import.meta.url)),
  }));
  const url = (caminho: string) => new URL(caminho, urlPublica).href;
  const exemplo = 'reservar sala=sala-garagem inicio=2026-11-03T14:00:00-03:00 fim=2026-11-03T15:00:00-03:00 responsavel=Marty';
  const catalogo = {
    specVersion: '1.0',
    host: { name: 'Hill Valley Tech: Central de Salas', url: urlPublica.origin },
    entries: [
      {
        identifier: 'urn:hillvalley:a2a:central-de-salas',
        displayName: 'Agente Central de Salas (A2A)',
        mediaType: 'application/a2a-agent-card+json',
        type: 'application/a2a-agent-card+json',
        url: url(CAMINHOS.card),
        representativeQueries: [exemplo, 'escolha=sala-mirante', ...Object.values(FORMATOS).map((formato) => `formato: ${formato}`)],
      },
      {
        identifier: 'urn:hillvalley:mcp:central-de-salas',
        displayName: 'Servidor MCP das salas (listar, consultar, reservar)',
        mediaType: 'application/mcp-server-card+json',
        type: 'application/mcp-server-card+json',
        url: new URL(CAMINHO_DO_SERVER_CARD_MCP, mcpUrl).href,
        representativeQueries: [
          'quais salas existem e qual a capacidade de cada uma?',
          'a sala-garagem esta livre em 2026-11-03 das 14h as 15h?',
          'reservar a sala-fusca das 9h as 10h para a Jennifer',
        ],
      },
    ],
  };
  const indice = {
    $schema: 'https://schemas.agentskills.io/discovery/0.2.0/schema.json',
    skills: skills.map(({ id, description, corpo }) => ({
      name: id,
      type: 'skill-md',
      description,
      url: url(caminhoDaSkill(id)),
      digest: `sha256:${createHash('sha256').update(corpo).digest('hex')}`,
    })),
  };
  const json = (valor: object): Documento => ({ tipo: 'application/json', corpo: JSON.stringify(valor, null, 2) });
  return new Map<string, Documento>([
    [CAMINHOS.card, json(card)],
    [CAMINHOS.catalogo, json(catalogo)],
    [CAMINHOS.indiceDeSkills, json(indice)],
    ...skills.map(({ id, corpo }): [string, Documento] => [caminhoDaSkill(id), { tipo: 'text/markdown; charset=utf-8', corpo }]),
  ]);
}
