/**
 * A Task's push-notification configs (its webhooks): in memory, or with
 * TASKS_DB in the database through the SDK's DatabasePushNotificationStore.
 * The SDK has a memory store too, but it never forgets: here a Task's
 * configs go when the Task store forgets the Task.
 */
import { randomUUID } from 'node:crypto';
import { noBanco } from './banco.js';
import type { TaskPushNotificationConfig } from '@a2a-js/sdk';
import {
  resolveUserScope,
  type PushNotificationStore,
  type ServerCallContext,
  type StoredPushNotificationConfig,
} from '@a2a-js/sdk/server';

/** Tenant and owner, as the database stores scope every row. */
const escopoDe = (context: ServerCallContext) => JSON.stringify([context.tenant ?? '', resolveUserScope(context)]);

export class WebhooksEmMemoria implements PushNotificationStore {
  private readonly porTask = new Map<string, { escopo: string; configs: StoredPushNotificationConfig[] }>();

  save(taskId: string, context: ServerCallContext, config: TaskPushNotificationConfig): Promise<void> {
    // The SDK answers the create with the config it handed here, so the id chosen is written back into it.
    if (!config.id) config.id = randomUUID();
    const escopo = escopoDe(context);
    const outras = this.daTask(taskId, context).filter((guardada) => guardada.config.id !== config.id);
    const nova = { config: structuredClone(config), wireVersion: context.requestedVersion };
    this.porTask.set(taskId, { escopo, configs: [...outras, nova] });
    return Promise.resolve();
  }

  async load(taskId: string, context: ServerCallContext): Promise<TaskPushNotificationConfig[]> {
    return (await this.loadWithMetadata(taskId, context)).map((guardada) => guardada.config);
  }

  loadWithMetadata(taskId: string, context: ServerCallContext): Promise<StoredPushNotificationConfig[]> {
    return Promise.resolve(structuredClone(this.daTask(taskId, context)));
  }

  /** Without a configId, every config of the Task goes. */
  delete(taskId: string, context: ServerCallContext, configId?: string): Promise<void> {
    const restantes = configId === undefined ? [] : this.daTask(taskId, context).filter((guardada) => guardada.config.id !== configId);
    if (restantes.length > 0) this.porTask.set(taskId, { escopo: escopoDe(context), configs: restantes });
    else if (this.porTask.get(taskId)?.escopo === escopoDe(context)) this.porTask.delete(taskId);
    return Promise.resolve();
  }

  /** The Task is gone from the Task store: its webhooks go too. */
  esquecer(taskId: string): void {
    this.porTask.delete(taskId);
  }

  private daTask(taskId: string, context: ServerCallContext): StoredPushNotificationConfig[] {
    const daTask = this.porTask.get(taskId);
    return daTask?.escopo === escopoDe(context) ? daTask.configs : [];
  }
}

/** The database's store, its failures told as BancoIndisponivel: the driver's text, which names hosts, never reaches the wire. */
export class WebhooksNoBanco implements PushNotificationStore {
  constructor(private readonly banco: PushNotificationStore) {}

  save(taskId: string, context: ServerCallContext, config: TaskPushNotificationConfig): Promise<void> {
    return noBanco(this.banco.save(taskId, context, config));
  }

  load(taskId: string, context: ServerCallContext): Promise<TaskPushNotificationConfig[]> {
    return noBanco(this.banco.load(taskId, context));
  }

  delete(taskId: string, context: ServerCallContext, configId?: string): Promise<void> {
    return noBanco(this.banco.delete(taskId, context, configId));
  }
}
