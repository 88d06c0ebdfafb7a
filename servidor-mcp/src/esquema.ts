/**
 * createMcpHandler builds a new McpServer for every request, and each one
 * asks its tools' schemas for their JSON Schema again (tools/list, and the
 * header check before every tools/call); zod converts anew each time. The
 * schemas never change, so each conversion is made once and reused.
 */
import type { StandardSchemaWithJSON } from '@modelcontextprotocol/server';

type Conversor = StandardSchemaWithJSON['~standard']['jsonSchema']['input'];

function congelar<T>(valor: T): T {
  if (typeof valor === 'object' && valor !== null) {
    for (const filho of Object.values(valor)) congelar(filho);
    Object.freeze(valor);
  }
  return valor;
}

export function esquemaFixo<Entrada, Saida>(esquema: StandardSchemaWithJSON<Entrada, Saida>): StandardSchemaWithJSON<Entrada, Saida> {
  const padrao = esquema['~standard'];
  const convertidos = new Map<string, Record<string, unknown>>();
  const memorizar =
    (io: 'input' | 'output'): Conversor =>
    (opcoes) => {
      const chave = `${io}:${JSON.stringify(opcoes)}`;
      let json = convertidos.get(chave);
      if (!json) convertidos.set(chave, (json = congelar(padrao.jsonSchema[io](opcoes))));
      return json;
    };
  return { '~standard': { ...padrao, jsonSchema: { input: memorizar('input'), output: memorizar('output') } } };
}
