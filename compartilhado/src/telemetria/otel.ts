/**
 * The OpenTelemetry SDK behind telemetria.ts, loaded only when an OTLP
 * endpoint is configured. Wired by hand rather than through sdk-node, which
 * loads every exporter it knows (gRPC, Zipkin, Prometheus) to pick one: here
 * OTLP/HTTP, protobuf or JSON, for traces and metrics. The exporters read
 * their standard variables themselves (endpoint, headers, timeout,
 * compression), and the resource detectors theirs; those the SDK reads only
 * through sdk-node (protocol, sampler, span limits, batching, metric interval)
 * are read here.
 */
import {
  context,
  diag,
  DiagLogLevel,
  SpanKind,
  SpanStatusCode,
  trace,
  type Attributes,
  type Histogram,
  type Span,
} from '@opentelemetry/api';
import { AsyncLocalStorageContextManager } from '@opentelemetry/context-async-hooks';
import { parseTraceParent, setGlobalErrorHandler } from '@opentelemetry/core';
import { OTLPMetricExporter as MetricasJson } from '@opentelemetry/exporter-metrics-otlp-http';
import { OTLPMetricExporter as MetricasProtobuf } from '@opentelemetry/exporter-metrics-otlp-proto';
import { OTLPTraceExporter as TracesJson } from '@opentelemetry/exporter-trace-otlp-http';
import { OTLPTraceExporter as TracesProtobuf } from '@opentelemetry/exporter-trace-otlp-proto';
import {
  defaultResource,
  detectResources,
  resourceAttributesEnvDetector,
  resourceFromAttributes,
  serviceNameEnvDetector,
} from '@opentelemetry/resources';
import { MeterProvider, PeriodicExportingMetricReader } from '@opentelemetry/sdk-metrics';
import {
  AlwaysOffSampler,
  AlwaysOnSampler,
  BatchSpanProcessor,
  ParentBasedSampler,
  TraceIdRatioBasedSampler,
  TracerProvider,
  type BatchSpanProcessorOptions,
  type Sampler,
  type SpanLimits,
} from '@opentelemetry/sdk-trace';
import { randomUUID } from 'node:crypto';
import { ConfiguracaoInvalida } from '../ambiente.js';
import type { Abertura, Atributos, Metrica, Motor, Tipo, Vao } from './telemetria.js';

const TIPOS: Readonly<Record<Tipo, SpanKind>> = { servidor: SpanKind.SERVER, cliente: SpanKind.CLIENT };

/** The buckets the MCP conventions give their duration histograms (seconds), used for A2A's too. */
const LIMITES_DOS_BALDES = [0.01, 0.02, 0.05, 0.1, 0.2, 0.5, 1, 2, 5, 10, 30, 60, 120, 300];

const PROTOCOLOS = ['http/protobuf', 'http/json'] as const;

/** How long the exit waits for the last export: well inside the 5 s a stopping process has (processo.ts). */
const PRAZO_PARA_DESCARREGAR_MS = 2000;
type Protocolo = (typeof PROTOCOLOS)[number];

const contextoDe = (traceparent: string) => {
  const pai = parseTraceParent(traceparent);
  return pai ? trace.setSpanContext(context.active(), pai) : undefined;
};

const traceparentDe = (span: Span): string => {
  const { traceId, spanId, traceFlags } = span.spanContext();
  return `00-${traceId}-${spanId}-${traceFlags.toString(16).padStart(2, '0')}`;
};

class VaoOtel implements Vao {
  private readonly comeco = performance.now();
  /** The attributes the histogram keeps, as they are set. */
  private readonly medidos: Attributes = {};

  constructor(
    private readonly span: Span,
    private readonly metrica?: { readonly histograma: Histogram; readonly chaves: ReadonlySet<string> },
  ) {}

  get traceId(): string {
    return this.span.spanContext().traceId;
  }

  get spanId(): string {
    return this.span.spanContext().spanId;
  }

  get traceparent(): string {
    return traceparentDe(this.span);
  }

  nomear(nome: string): void {
    this.span.updateName(nome);
  }

  definir(atributos: Atributos): void {
    for (const [chave, valor] of Object.entries(atributos)) {
      if (valor === undefined) continue;
      this.span.setAttribute(chave, valor);
      if (this.metrica?.chaves.has(chave)) this.medidos[chave] = valor;
    }
  }

  ligarA(traceparent: string): void {
    const outro = parseTraceParent(traceparent);
    if (outro) this.span.addLink({ context: outro });
  }

  falhar(tipo: string, descricao?: string): void {
    this.definir({ 'error.type': tipo });
    this.span.setStatus({ code: SpanStatusCode.ERROR, ...(descricao === undefined ? {} : { message: descricao }) });
  }

  dentro<T>(fazer: () => T): T {
    return context.with(trace.setSpan(context.active(), this.span), fazer);
  }

  encerrar(): void {
    this.span.end();
    this.metrica?.histograma.record((performance.now() - this.comeco) / 1000, this.medidos);
  }
}

/** A failed export is a warning, the same one at most once a minute: a collector that is down would say it every batch. */
function avisador(log: (linha: string) => void): (texto: string) => void {
  const ditos = new Map<string, number>();
  return (texto) => {
    // The SDK's own messages may quote an endpoint: whatever sits before an @ in a URL goes.
    const linha = texto
      .replace(/\s+/g, ' ')
      .replace(/\/\/[^/\s@]+@/g, '//***@')
      .slice(0, 300);
    const agora = Date.now();
    if ((ditos.get(linha) ?? -Infinity) > agora - 60_000) return;
    if (ditos.size > 100) ditos.clear();
    ditos.set(linha, agora);
    log(`telemetria: ${linha}`);
  };
}

const textoDoErro = (erro: unknown): string =>
  erro instanceof Error ? erro.message : typeof erro === 'string' ? erro : JSON.stringify(erro);

/** The protocol for a signal: its own variable, the general one, or http/protobuf (the spec's default). */
function protocolo(env: NodeJS.ProcessEnv, sinal: 'TRACES' | 'METRICS'): Protocolo {
  const nome = env[`OTEL_EXPORTER_OTLP_${sinal}_PROTOCOL`] ? `OTEL_EXPORTER_OTLP_${sinal}_PROTOCOL` : 'OTEL_EXPORTER_OTLP_PROTOCOL';
  const valor = env[nome]?.trim() || 'http/protobuf';
  const conhecido = PROTOCOLOS.find((um) => um === valor);
  if (conhecido) return conhecido;
  throw new ConfiguracaoInvalida(`${nome}=${valor}: este processo exporta por OTLP/HTTP (http/protobuf ou http/json)`);
}

/** Whether `OTEL_{TRACES,METRICS}_EXPORTER` leaves this signal on: unset or `otlp` is on, `none` off. */
function exporta(env: NodeJS.ProcessEnv, sinal: 'TRACES' | 'METRICS'): boolean {
  const valor = env[`OTEL_${sinal}_EXPORTER`]?.trim() || 'otlp';
  if (valor === 'otlp' || valor === 'none') return valor === 'otlp';
  throw new ConfiguracaoInvalida(`OTEL_${sinal}_EXPORTER=${valor}: este processo exporta por otlp (ou none)`);
}

/** A positive integer from a variable, or undefined when it is unset; anything else is refused, naming it. */
function positivo(env: NodeJS.ProcessEnv, nome: string, unidade?: string): number | undefined {
  const bruto = env[nome]?.trim();
  if (!bruto) return undefined;
  const valor = Number(bruto);
  if (Number.isInteger(valor) && valor > 0) return valor;
  throw new ConfiguracaoInvalida(`${nome}=${bruto}: esperado um inteiro positivo${unidade ? ` (${unidade})` : ''}`);
}

const milissegundos = (env: NodeJS.ProcessEnv, nome: string, padrao: number): number => positivo(env, nome, 'milissegundos') ?? padrao;

/** Options the SDK takes as numbers, each from the first of its variables that is set; those unset keep the SDK's defaults. */
function numeros<Opcao extends string>(
  env: NodeJS.ProcessEnv,
  variaveis: Readonly<Record<Opcao, readonly string[]>>,
): Partial<Record<Opcao, number>> {
  const opcoes: Partial<Record<Opcao, number>> = {};
  for (const opcao of Object.keys(variaveis) as Opcao[]) {
    const nome = variaveis[opcao].find((um) => env[um]?.trim());
    if (nome) opcoes[opcao] = positivo(env, nome);
  }
  return opcoes;
}

/** The span limits of the SDK specification: a span's own variable first, then the general one. */
const LIMITES = {
  attributeValueLengthLimit: ['OTEL_SPAN_ATTRIBUTE_VALUE_LENGTH_LIMIT', 'OTEL_ATTRIBUTE_VALUE_LENGTH_LIMIT'],
  attributeCountLimit: ['OTEL_SPAN_ATTRIBUTE_COUNT_LIMIT', 'OTEL_ATTRIBUTE_COUNT_LIMIT'],
  eventCountLimit: ['OTEL_SPAN_EVENT_COUNT_LIMIT'],
  linkCountLimit: ['OTEL_SPAN_LINK_COUNT_LIMIT'],
  attributePerEventCountLimit: ['OTEL_EVENT_ATTRIBUTE_COUNT_LIMIT'],
  attributePerLinkCountLimit: ['OTEL_LINK_ATTRIBUTE_COUNT_LIMIT'],
} as const satisfies Record<keyof SpanLimits, readonly string[]>;

/** The batch span processor's queue, batch and pace (the SDK's defaults: 2048 spans, 512 a batch, every 5 s, 30 s each). */
const LOTE = {
  maxQueueSize: ['OTEL_BSP_MAX_QUEUE_SIZE'],
  maxExportBatchSize: ['OTEL_BSP_MAX_EXPORT_BATCH_SIZE'],
  scheduledDelayMillis: ['OTEL_BSP_SCHEDULE_DELAY'],
  exportTimeoutMillis: ['OTEL_BSP_EXPORT_TIMEOUT'],
} as const satisfies Partial<Record<keyof BatchSpanProcessorOptions, readonly string[]>>;

/** The samplers OTEL_TRACES_SAMPLER may name; the remote ones (Jaeger, X-Ray) would need a service this process does not reach. */
const AMOSTRADORES: Readonly<Record<string, (proporcao: () => number) => Sampler>> = {
  always_on: () => new AlwaysOnSampler(),
  always_off: () => new AlwaysOffSampler(),
  traceidratio: (proporcao) => new TraceIdRatioBasedSampler(proporcao()),
  parentbased_always_on: () => new ParentBasedSampler({ root: new AlwaysOnSampler() }),
  parentbased_always_off: () => new ParentBasedSampler({ root: new AlwaysOffSampler() }),
  parentbased_traceidratio: (proporcao) => new ParentBasedSampler({ root: new TraceIdRatioBasedSampler(proporcao()) }),
};

/** OTEL_TRACES_SAMPLER (parentbased_always_on when unset) and, for a ratio, OTEL_TRACES_SAMPLER_ARG (1 when unset). */
function amostrador(env: NodeJS.ProcessEnv): Sampler {
  const nome = env.OTEL_TRACES_SAMPLER?.trim() || 'parentbased_always_on';
  const criar = Object.hasOwn(AMOSTRADORES, nome) ? AMOSTRADORES[nome] : undefined;
  if (!criar) throw new ConfiguracaoInvalida(`OTEL_TRACES_SAMPLER=${nome}: esperado um de ${Object.keys(AMOSTRADORES).join(', ')}`);
  return criar(() => {
    const bruto = env.OTEL_TRACES_SAMPLER_ARG?.trim();
    if (!bruto) return 1;
    const valor = Number(bruto);
    if (valor >= 0 && valor <= 1) return valor;
    throw new ConfiguracaoInvalida(`OTEL_TRACES_SAMPLER_ARG=${bruto}: esperado um numero de 0 a 1`);
  });
}

const ENDPOINTS = ['OTEL_EXPORTER_OTLP_ENDPOINT', 'OTEL_EXPORTER_OTLP_TRACES_ENDPOINT', 'OTEL_EXPORTER_OTLP_METRICS_ENDPOINT'];

/**
 * Each endpoint set must be an http(s) URL: the SDK would warn, quoting it
 * whole (a token in it too), and export to its default instead. Refused
 * without echoing the value.
 */
function conferirEndpoints(env: NodeJS.ProcessEnv): void {
  for (const nome of ENDPOINTS) {
    const valor = env[nome]?.trim();
    if (valor && !(URL.canParse(valor) && /^https?:$/.test(new URL(valor).protocol)))
      throw new ConfiguracaoInvalida(`${nome}: esperado uma URL http:// ou https:// (por exemplo http://localhost:4318)`);
  }
}

/** A URL fit for a log line: no user, no password (a collector's token may ride in either). */
function semCredenciais(valor: string): string {
  const url = new URL(valor);
  url.username = '';
  url.password = '';
  return url.href;
}

/** Attribute values a client sends (ids, a tenant, a URI) are cut here unless the standard variables say otherwise: a queued span holds them all. */
const TAMANHO_MAXIMO_DE_ATRIBUTO = 1024;

/** The motor, with a line saying where it exports. A value it cannot honour stops the process, naming its variable. */
export function abrirOtel(servico: string, log: (linha: string) => void, env: NodeJS.ProcessEnv): { motor: Motor; descricao: string } {
  conferirEndpoints(env);
  const traces = exporta(env, 'TRACES');
  // Metrics go where OTEL_EXPORTER_OTLP_ENDPOINT or the metrics endpoint says; a traces endpoint alone names no place for them.
  const metricas = exporta(env, 'METRICS') && Boolean(env.OTEL_EXPORTER_OTLP_METRICS_ENDPOINT || env.OTEL_EXPORTER_OTLP_ENDPOINT);
  const protocoloDosTraces = protocolo(env, 'TRACES');
  const protocoloDasMetricas = protocolo(env, 'METRICS');
  const intervalo = milissegundos(env, 'OTEL_METRIC_EXPORT_INTERVAL', 60_000);
  const prazo = Math.min(milissegundos(env, 'OTEL_METRIC_EXPORT_TIMEOUT', 30_000), intervalo);
  const sampler = amostrador(env);
  const spanLimits = { attributeValueLengthLimit: TAMANHO_MAXIMO_DE_ATRIBUTO, ...numeros(env, LIMITES) };
  const lote = numeros(env, LOTE);

  const avisar = avisador(log);
  diag.setLogger(
    { error: avisar, warn: avisar, info: () => undefined, debug: () => undefined, verbose: () => undefined },
    DiagLogLevel.WARN,
  );
  setGlobalErrorHandler((erro) => avisar(`exportacao falhou: ${textoDoErro(erro)}`));
  // OTEL_RESOURCE_ATTRIBUTES, then OTEL_SERVICE_NAME over it, win over the process's own name.
  const resource = defaultResource()
    .merge(resourceFromAttributes({ 'service.name': servico, 'service.instance.id': randomUUID() }))
    .merge(detectResources({ detectors: [resourceAttributesEnvDetector, serviceNameEnvDetector] }));

  const provedor = new TracerProvider({
    resource,
    sampler,
    spanLimits,
    spanProcessors: traces
      ? [new BatchSpanProcessor({ exporter: protocoloDosTraces === 'http/json' ? new TracesJson() : new TracesProtobuf(), ...lote })]
      : [],
  });
  // The context manager (AsyncLocalStorage), globally: the spans of a request nest under it. No global propagator or
  // provider: the traceparent is written and read here, and spans start on this provider's tracer.
  context.setGlobalContextManager(new AsyncLocalStorageContextManager().enable());
  const tracer = provedor.getTracer('a-ponte');

  const provedorDeMetricas = new MeterProvider({
    resource,
    readers: metricas
      ? [
          new PeriodicExportingMetricReader({
            exporter: protocoloDasMetricas === 'http/json' ? new MetricasJson() : new MetricasProtobuf(),
            exportIntervalMillis: intervalo,
            exportTimeoutMillis: prazo,
          }),
        ]
      : [],
  });
  const medidor = provedorDeMetricas.getMeter('a-ponte');
  const histogramas = new Map<string, Histogram>();
  const histograma = ({ nome, descricao }: Metrica) => {
    let existente = histogramas.get(nome);
    if (!existente) {
      existente = medidor.createHistogram(nome, {
        unit: 's',
        description: descricao,
        advice: { explicitBucketBoundaries: LIMITES_DOS_BALDES },
      });
      histogramas.set(nome, existente);
    }
    return existente;
  };

  const motor: Motor = {
    iniciar(nome: string, { tipo, pai, ligacoes = [], atributos = {}, metrica }: Abertura): Vao {
      const links = ligacoes.flatMap((ligacao) => {
        const outro = parseTraceParent(ligacao);
        return outro ? [{ context: outro }] : [];
      });
      const span = tracer.startSpan(
        nome,
        { kind: TIPOS[tipo], links },
        (pai === undefined ? undefined : contextoDe(pai)) ?? context.active(),
      );
      const vao = new VaoOtel(span, metrica && { histograma: histograma(metrica), chaves: new Set(metrica.atributos) });
      vao.definir(atributos);
      return vao;
    },
    atual() {
      const span = trace.getActiveSpan();
      return span && new VaoOtel(span);
    },
    observar(nome, descricao, unidade, ler) {
      medidor.createObservableGauge(nome, { description: descricao, unit: unidade }).addCallback(async (resultado) => {
        resultado.observe(await ler());
      });
    },
    encerrar: async () => {
      // A collector that hangs would hold the exit until the forced one: what it has not taken by then is dropped.
      const desistir = new Promise((resolver) => setTimeout(resolver, PRAZO_PARA_DESCARREGAR_MS).unref());
      await Promise.race([Promise.allSettled([provedor.shutdown(), provedorDeMetricas.shutdown()]), desistir]);
    },
  };
  const onde = semCredenciais(env.OTEL_EXPORTER_OTLP_ENDPOINT || env.OTEL_EXPORTER_OTLP_TRACES_ENDPOINT || '');
  const sinais = [traces ? `traces (${protocoloDosTraces})` : '', metricas ? `metricas (${protocoloDasMetricas})` : '']
    .filter(Boolean)
    .join(' e ');
  return { motor, descricao: `telemetria OTLP/HTTP para ${onde}: ${sinais || 'nada (exportadores em none)'}` };
}
