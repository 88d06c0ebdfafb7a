/**
 * A real OTLP/HTTP receiver for the tests: it listens on a free port,
 * answers as a collector does, and decodes what arrives at /v1/traces and
 * /v1/metrics, protobuf with the official OTLP transformer's generated
 * decoder (0.216.0, the last with one: see docs/observabilidade.md) and JSON as JSON,
 * into one plain shape. `segurar` makes it take requests and never answer
 * (a collector that hangs).
 */
import { once } from 'node:events';
import { createServer, type IncomingMessage, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
// The package has no exports map: its generated protobuf root is reached by path.
import raiz from 'otlp-decodificador/build/src/generated/root.js';

export interface SpanRecebido {
  readonly servico: string;
  readonly nome: string;
  /** SPAN_KIND_SERVER etc., as the proto names it. */
  readonly tipo: string;
  readonly traceId: string;
  readonly spanId: string;
  readonly pai: string;
  readonly atributos: Readonly<Record<string, unknown>>;
  readonly ligacoes: readonly { readonly traceId: string; readonly spanId: string }[];
  /** STATUS_CODE_ERROR etc. */
  readonly status: string;
  readonly descricao?: string;
}

export interface MetricaRecebida {
  readonly servico: string;
  readonly nome: string;
  readonly unidade: string;
  /** The attributes of each data point. */
  readonly pontos: readonly Readonly<Record<string, unknown>>[];
  /** Histogram bucket bounds, when it is one. */
  readonly limites?: readonly number[];
  /** A gauge's values. */
  readonly valores?: readonly number[];
}

export interface Receptor {
  /** The base URL, for OTEL_EXPORTER_OTLP_ENDPOINT. */
  readonly url: string;
  readonly spans: SpanRecebido[];
  readonly metricas: MetricaRecebida[];
  /** Content-Type of every request received. */
  readonly tipos: string[];
  /** Resolves once `condicao` holds for what has arrived (checked on each arrival), or rejects after `ms`. */
  esperar(condicao: () => boolean, ms?: number): Promise<void>;
  fechar(): Promise<void>;
}

/** What this file uses of a generated protobuf message class. */
interface Mensagem {
  decode(bytes: Uint8Array): unknown;
  toObject(mensagem: unknown, opcoes: object): Record<string, unknown>;
}
const { collector } = (
  raiz as unknown as {
    opentelemetry: { proto: { collector: { trace: { v1: Record<string, Mensagem> }; metrics: { v1: Record<string, Mensagem> } } } };
  }
).opentelemetry.proto;
const PEDIDOS: Readonly<Record<string, Mensagem | undefined>> = {
  '/v1/traces': collector.trace.v1.ExportTraceServiceRequest,
  '/v1/metrics': collector.metrics.v1.ExportMetricsServiceRequest,
};

const OPCOES_DE_DECODIFICACAO = { longs: String, enums: String, bytes: String, defaults: false };

/** OTLP JSON carries ids as hex; the protobuf decoder gives bytes as base64: both end as hex. */
const hex = (valor: unknown, protobuf: boolean): string =>
  typeof valor !== 'string' || valor === '' ? '' : protobuf ? Buffer.from(valor, 'base64').toString('hex') : valor.toLowerCase();

/** An AnyValue as a plain value. */
function valor(any: Record<string, unknown> | undefined): unknown {
  if (!any) return undefined;
  if ('stringValue' in any) return any.stringValue;
  if ('intValue' in any) return Number(any.intValue);
  if ('doubleValue' in any) return Number(any.doubleValue);
  if ('boolValue' in any) return any.boolValue;
  return any;
}

type Atributo = { key: string; value?: Record<string, unknown> };
const atributos = (lista: unknown): Record<string, unknown> =>
  Object.fromEntries(((lista ?? []) as Atributo[]).map(({ key, value }) => [key, valor(value)]));

/** JSON's enums are numbers, the decoder's names. */
const TIPOS = [
  'SPAN_KIND_UNSPECIFIED',
  'SPAN_KIND_INTERNAL',
  'SPAN_KIND_SERVER',
  'SPAN_KIND_CLIENT',
  'SPAN_KIND_PRODUCER',
  'SPAN_KIND_CONSUMER',
];
const STATUS = ['STATUS_CODE_UNSET', 'STATUS_CODE_OK', 'STATUS_CODE_ERROR'];
const nomeDoEnum = (valor: unknown, nomes: readonly string[]) =>
  typeof valor === 'number' ? (nomes[valor] ?? String(valor)) : typeof valor === 'string' ? valor : (nomes[0] ?? '');

type Objeto = Record<string, unknown>;
const lista = (valor: unknown): Objeto[] => (Array.isArray(valor) ? (valor as Objeto[]) : []);

function spansDe(corpo: Objeto, protobuf: boolean): SpanRecebido[] {
  return lista(corpo.resourceSpans).flatMap((recurso) => {
    const servico = String(atributos((recurso.resource as Objeto | undefined)?.attributes)['service.name']);
    return lista(recurso.scopeSpans).flatMap((escopo) =>
      lista(escopo.spans).map((span) => {
        const status = (span.status ?? {}) as Objeto;
        return {
          servico,
          nome: String(span.name),
          tipo: nomeDoEnum(span.kind, TIPOS),
          traceId: hex(span.traceId, protobuf),
          spanId: hex(span.spanId, protobuf),
          pai: hex(span.parentSpanId, protobuf),
          atributos: atributos(span.attributes),
          ligacoes: lista(span.links).map((ligacao) => ({
            traceId: hex(ligacao.traceId, protobuf),
            spanId: hex(ligacao.spanId, protobuf),
          })),
          status: nomeDoEnum(status.code, STATUS),
          ...(typeof status.message === 'string' && status.message !== '' ? { descricao: status.message } : {}),
        };
      }),
    );
  });
}

function metricasDe(corpo: Objeto): MetricaRecebida[] {
  return lista(corpo.resourceMetrics).flatMap((recurso) => {
    const servico = String(atributos((recurso.resource as Objeto | undefined)?.attributes)['service.name']);
    return lista(recurso.scopeMetrics).flatMap((escopo) =>
      lista(escopo.metrics).map((metrica) => {
        const histograma = metrica.histogram as Objeto | undefined;
        const medidor = metrica.gauge as Objeto | undefined;
        const pontos = lista(histograma?.dataPoints ?? medidor?.dataPoints ?? (metrica.sum as Objeto | undefined)?.dataPoints);
        const [primeiro] = pontos;
        return {
          servico,
          nome: String(metrica.name),
          unidade: typeof metrica.unit === 'string' ? metrica.unit : '',
          pontos: pontos.map((ponto) => atributos(ponto.attributes)),
          ...(histograma && primeiro ? { limites: lista(primeiro.explicitBounds).map(Number) } : {}),
          ...(medidor ? { valores: pontos.map((ponto) => Number(ponto.asInt ?? ponto.asDouble ?? 0)) } : {}),
        };
      }),
    );
  });
}

async function lerCorpo(req: IncomingMessage): Promise<Buffer> {
  const partes: Buffer[] = [];
  for await (const parte of req as AsyncIterable<Buffer>) partes.push(parte);
  return Buffer.concat(partes);
}

export async function iniciarReceptor({ segurar = false } = {}): Promise<Receptor> {
  const spans: SpanRecebido[] = [];
  const metricas: MetricaRecebida[] = [];
  const tipos: string[] = [];
  const esperando = new Set<() => void>();
  const servidor: Server = createServer((req, res) => {
    void lerCorpo(req).then((bytes) => {
      const tipo = req.headers['content-type'] ?? '';
      tipos.push(tipo);
      if (segurar) return;
      const protobuf = tipo.includes('protobuf');
      const traces = req.url === '/v1/traces';
      const mensagem = PEDIDOS[req.url ?? ''];
      if (!mensagem) {
        res.writeHead(404).end();
        return;
      }
      const corpo = protobuf
        ? mensagem.toObject(mensagem.decode(bytes), OPCOES_DE_DECODIFICACAO)
        : (JSON.parse(bytes.toString('utf8')) as Objeto);
      if (traces) spans.push(...spansDe(corpo, protobuf));
      else metricas.push(...metricasDe(corpo));
      res.writeHead(200, { 'content-type': tipo }).end(protobuf ? undefined : '{}');
      for (const avisar of esperando) avisar();
    });
  });
  servidor.listen(0, '127.0.0.1');
  await once(servidor, 'listening');
  const { port } = servidor.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${String(port)}`,
    spans,
    metricas,
    tipos,
    esperar: (condicao, ms = 20_000) =>
      new Promise<void>((resolver, rejeitar) => {
        if (condicao()) {
          resolver();
          return;
        }
        const verificar = () => {
          if (!condicao()) return;
          esperando.delete(verificar);
          clearTimeout(prazo);
          resolver();
        };
        const prazo = setTimeout(() => {
          esperando.delete(verificar);
          rejeitar(
            new Error(
              `o receptor OTLP nao recebeu o esperado em ${String(ms)} ms (${String(spans.length)} spans, ${String(metricas.length)} metricas)`,
            ),
          );
        }, ms);
        esperando.add(verificar);
      }),
    fechar: async () => {
      servidor.closeAllConnections();
      servidor.close();
      await once(servidor, 'close');
    },
  };
}
