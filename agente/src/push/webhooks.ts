/**
 * A Task's push-notification configs (its webhooks): in memory, or with
 * TASKS_DB in the database through the SDK's DatabasePushNotificationStore.
 * The SDK has a memory store too, but it never forgets: here a Task's
 * configs go when the Task store forgets the Task.
 */
import { randomUUID } from 'node:crypto';
import { noBanco } from '../armazenamento/banco.js';
import { escopoDe } from '../armazenamento/escopo.js';
import type { TaskPushNotificationConfig } from '@a2a-js/sdk';
import type { PushNotificationStore, ServerCallContext, StoredPushNotificationConfig } from '@a2a-js/sdk/server';

export class WebhooksEmMemoria implements PushNotificationStore {
  /** Task id -> the configs each caller scope keeps for it (escopoDe). */
  private readonly porTask = new Map<string, Map<string, StoredPushNotificationConfig[]>>();

  save(taskId: string, context: ServerCallContext, config: TaskPushNotificationConfig): Promise<void> {
    // The SDK answers the create with the config it handed here, so the id chosen is written back into it.
    if (!config.id) config.id = randomUUID();
    const outras = this.daTask(taskId, context).filter((guardada) => guardada.config.id !== config.id);
    this.guardar(taskId, context, [...outras, { config: structuredClone(config), wireVersion: context.requestedVersion }]);
    return Promise.resolve();
  }

  async load(taskId: string, context: ServerCallContext): Promise<TaskPushNotificationConfig[]> {
    return (await this.loadWithMetadata(taskId, context)).map((guardada) => guardada.config);
  }

  loadWithMetadata(taskId: string, context: ServerCallContext): Promise<StoredPushNotificationConfig[]> {
    return Promise.resolve(structuredClone(this.daTask(taskId, context)));
  }

  /** As the database's store: one config at a time (all of a Task's go with the Task, through esquecer). */
  delete(taskId: string, context: ServerCallContext, configId?: string): Promise<void> {
    if (configId === undefined) return Promise.reject(new Error('Deleting a push notification config needs its configId.'));
    this.guardar(
      taskId,
      context,
      this.daTask(taskId, context).filter((guardada) => guardada.config.id !== configId),
    );
    return Promise.resolve();
  }

  /** The Task is gone from the Task store: its webhooks go too. */
  esquecer(taskId: string): void {
    this.porTask.delete(taskId);
  }

  private daTask(taskId: string, context: ServerCallContext): StoredPushNotificationConfig[] {
    return this.porTask.get(taskId)?.get(escopoDe(context)) ?? [];
  }

  /** Nothing is kept for a scope, or a Task, left with no config. */
  private guardar(taskId: string, context: ServerCallContext, configs: StoredPushNotificationConfig[]): void {
    const porEscopo = this.porTask.get(taskId) ?? new Map<string, StoredPushNotificationConfig[]>();
    if (configs.length > 0) porEscopo.set(escopoDe(context), configs);
    else porEscopo.delete(escopoDe(context));
    if (porEscopo.size > 0) this.porTask.set(taskId, porEscopo);
    else this.porTask.delete(taskId);
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
