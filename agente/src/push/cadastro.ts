/**
 * A webhook as the request handler takes it and gives it back: accepted
 * only on an allowed host, with an id the database holds and secrets that
 * fit in a header, a Task keeping at most a few; read back with its
 * secrets hidden.
 */
import type { TaskPushNotificationConfig } from '@a2a-js/sdk';
import { RequestMalformedError } from '@a2a-js/sdk/errors';
import type { PushNotificationSender, PushNotificationStore, ServerCallContext } from '@a2a-js/sdk/server';
import { destinoRecusado } from './avisos.js';

/**
 * A webhook's id is the client's name for it (the proto sets no length:
 * "e.g. UUID"), kept up to the column's 255 characters (the SDK made it 36;
 * migracoes.ts widens it); a Task's webhooks are few.
 */
export const LIMITES_DO_WEBHOOK = { id: 255, porTask: 10 };

/** What a webhook's token and credentials read as once stored: they were written by the client, and are the client's to keep. */
const SEGREDO_OCULTO = '********';

export interface Push {
  readonly configs: PushNotificationStore;
  readonly avisos: PushNotificationSender;
  /** The hosts a webhook may point at (AGENTE_PUSH_HOSTS). */
  readonly hosts: ReadonlySet<string>;
}

/** A webhook about to be stored for `taskId` (empty for a Task not yet created). */
export async function conferirWebhook(
  taskId: string,
  config: TaskPushNotificationConfig,
  context: ServerCallContext,
  push: Pick<Push, 'configs' | 'hosts'>,
): Promise<void> {
  const recusa = destinoRecusado(config.url, push.hosts);
  if (recusa) throw new RequestMalformedError(`Webhook recusado: ${recusa}`);
  if (config.id.length > LIMITES_DO_WEBHOOK.id) {
    throw new RequestMalformedError(`O id do webhook tem mais de ${String(LIMITES_DO_WEBHOOK.id)} caracteres.`);
  }
  // Sent as HTTP headers at every delivery: refused now, not at the first notification.
  if ([config.token, config.authentication?.credentials, config.authentication?.scheme].some(naoCabeNumCabecalho)) {
    throw new RequestMalformedError('O token ou as credenciais do webhook trazem caracteres que nao cabem num cabecalho HTTP.');
  }
  if (!taskId) return;
  const existentes = await push.configs.load(taskId, context);
  if (existentes.length >= LIMITES_DO_WEBHOOK.porTask && !existentes.some((existente) => existente.id === config.id)) {
    throw new RequestMalformedError(
      `A Task ${taskId} ja tem ${String(LIMITES_DO_WEBHOOK.porTask)} webhooks: apague um antes de criar outro.`,
    );
  }
}

/** Control characters (CR, LF, NUL...) and anything past Latin-1 cannot be sent in a header value. */
const naoCabeNumCabecalho = (valor: string | undefined) => valor !== undefined && /[^\t\x20-\x7e\x80-\xff]/.test(valor);

export function semSegredos(config: TaskPushNotificationConfig): TaskPushNotificationConfig {
  const oculto = (valor: string) => (valor ? SEGREDO_OCULTO : valor);
  return {
    ...config,
    token: oculto(config.token),
    ...(config.authentication && { authentication: { ...config.authentication, credentials: oculto(config.authentication.credentials) } }),
  };
}
