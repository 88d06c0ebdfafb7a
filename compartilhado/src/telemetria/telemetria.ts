/**
 * Traces and metrics, off unless an OTLP endpoint is configured
 * (OTEL_EXPORTER_OTLP_ENDPOINT or OTEL_EXPORTER_OTLP_TRACES_ENDPOINT). This
 * file is all the processes import: it loads no OpenTelemetry package, and
 * while telemetry is off every function here is a no-op that returns
 * undefined. Turned on at start, it loads otel.ts (the official SDK,
 * exporting over OTLP/HTTP) once, and the same functions go through it.
 */
export type Atributos = Readonly<Record<string, string | number | boolean | undefined>>;

/** A span's kind, as the conventions name it for each side of a request. */
export type Tipo = 'servidor' | 'cliente';

/** One span that is running. */
export interface Vao {
  readonly traceId: string;
  readonly spanId: string;
  /** The W3C traceparent of this span: what the next hop takes as its parent. */
  readonly traceparent: string;
  /** The name, when it is known only after the span began (a JSON-RPC body read later). */
  nomear(nome: string): void;
  definir(atributos: Atributos): void;
  /** A link to another trace's span (a paused Task's request, from its answer's). */
  ligarA(traceparent: string): void;
  /** The span failed: `error.type` and an ERROR status with the description. */
  falhar(tipo: string, descricao?: string): void;
  /** Runs `fazer` with this span as the parent of the spans it starts. */
  dentro<T>(fazer: () => T): T;
  /** Ends the span; a histogram named at its start (Abertura.metrica) gets its duration. */
  encerrar(): void;
}

/**
 * What a span and its series say of a value a client made up (a method, a
 * version, a tool's name), as the HTTP conventions name a method they do
 * not know: each value of those attributes is a series of the histogram,
 * kept for the process's life, and a client must not add one per request.
 */
export const OUTRO = '_OTHER';

/** A histogram of durations in seconds, fed by the spans that name it. */
export interface Metrica {
  readonly nome: string;
  readonly descricao: string;
  /** Which of the span's attributes the histogram keeps (never an id: one series per Task would grow without end). */
  readonly atributos: readonly string[];
}

export interface Abertura {
  readonly tipo: Tipo;
  /**
   * The parent: a traceparent received. Without one, or with one that is
   * invalid (ignored, as the W3C spec says), the span running where this one
   * starts, if any: a request's span starts a trace of its own.
   */
  readonly pai?: string;
  readonly ligacoes?: readonly string[];
  readonly atributos?: Atributos;
  readonly metrica?: Metrica;
}

/** What otel.ts gives once loaded. */
export interface Motor {
  iniciar(nome: string, abertura: Abertura): Vao;
  atual(): Vao | undefined;
  /** A gauge read at each export (the number of paused Tasks). */
  observar(nome: string, descricao: string, unidade: string, ler: () => Promise<number>): void;
  encerrar(): Promise<void>;
}

let motor: Motor | undefined;

/** Spans are made and exported: an endpoint was configured at start. */
export const telemetriaLigada = (): boolean => motor !== undefined;

/** A new span, or undefined while telemetry is off. */
export const iniciarVao = (nome: string, abertura: Abertura): Vao | undefined => motor?.iniciar(nome, abertura);

/** The span running here (a request's, a call's), or undefined. */
export const vaoAtual = (): Vao | undefined => motor?.atual();

export function observar(nome: string, descricao: string, unidade: string, ler: () => Promise<number>): void {
  motor?.observar(nome, descricao, unidade, ler);
}

/** The endpoint variables that turn telemetry on, the first one set. */
const ENDPOINTS = ['OTEL_EXPORTER_OTLP_TRACES_ENDPOINT', 'OTEL_EXPORTER_OTLP_ENDPOINT'] as const;

/**
 * At start, before anything is served: loads OpenTelemetry when an endpoint
 * is configured (and OTEL_SDK_DISABLED is not true) and says where it
 * exports; undefined, and nothing loaded, otherwise. A value it cannot honour
 * stops the process, naming the variable.
 */
export async function ligarTelemetria(servico: string, log: (linha: string) => void): Promise<string | undefined> {
  const { env } = process;
  if (!ENDPOINTS.some((nome) => env[nome]?.trim()) || env.OTEL_SDK_DISABLED?.trim().toLowerCase() === 'true') return undefined;
  const { abrirOtel } = await import('./otel.js');
  const aberto = abrirOtel(servico, log, env);
  motor = aberto.motor;
  return aberto.descricao;
}

/** At exit: what is still queued is sent (bounded by the exporters' timeout). */
export async function encerrarTelemetria(): Promise<void> {
  await motor?.encerrar();
}
