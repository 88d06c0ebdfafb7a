/**
 * The Kubernetes manifests (deploy/k8s/), rendered offline by
 * `kubectl kustomize` as a user renders them, and checked against the
 * processes: the probes ask the real health paths on the containers' named
 * ports, the ports are the processes' defaults, the secret keys are the
 * variables the processes read, and the drain fits the grace period.
 * (`.ci/run` installs kubectl when the machine lacks it.)
 */
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { it } from 'node:test';
import { parseAllDocuments } from 'yaml';
import { CAMINHOS_DE_SAUDE } from 'compartilhado/saude';

interface Porta {
  name: string;
  containerPort: number;
}
interface Sonda {
  httpGet: { path: string; port: string };
}
interface Container {
  name: string;
  image: string;
  command: string[];
  ports: Porta[];
  env: { name: string; value?: string; valueFrom?: { secretKeyRef: { name: string; key: string } } }[];
  livenessProbe: Sonda;
  readinessProbe: Sonda;
  resources: { requests: { memory: string; cpu: string }; limits: { memory: string } };
}
interface Objeto {
  kind: string;
  metadata: { name: string };
  spec: {
    replicas?: number;
    template?: { spec: { terminationGracePeriodSeconds: number; containers: Container[] } };
    ports?: { port: number; targetPort: string }[];
    minAvailable?: number;
  };
}

const renderizados = (): Objeto[] =>
  parseAllDocuments(execFileSync('kubectl', ['kustomize', 'deploy/k8s'], { encoding: 'utf8' })).map(
    (documento) => documento.toJSON() as Objeto,
  );

const PROCESSOS = {
  'servidor-mcp': { porta: 7301, bundle: 'servidor-mcp/dist/main.js', segredos: ['REQUEST_STATE_SECRET', 'RESERVAS_DB'] },
  agente: { porta: 7300, bundle: 'agente/dist/main.js', segredos: ['TASKS_DB'] },
} as const;

it('kubectl kustomize renders a Deployment, a Service and a PodDisruptionBudget for each process, on the real health paths and ports', () => {
  const objetos = renderizados();
  const de = (kind: string, name: string) => {
    const achado = objetos.find((objeto) => objeto.kind === kind && objeto.metadata.name === name);
    assert.ok(achado, `${kind}/${name}`);
    return achado;
  };
  for (const [nome, processo] of Object.entries(PROCESSOS)) {
    const implantacao = de('Deployment', nome);
    assert.ok((implantacao.spec.replicas ?? 0) >= 2, 'two replicas: one may go while the other serves');
    const modelo = implantacao.spec.template?.spec;
    assert.ok(modelo);
    // The drain (PRAZO_PARA_ENCERRAR_MS, 5 s) fits in the grace period.
    assert.ok(modelo.terminationGracePeriodSeconds > 5);
    const [container] = modelo.containers;
    assert.ok(container);
    assert.equal(container.image, 'a-ponte:1.0.0');
    assert.deepEqual(container.command, ['node', processo.bundle]);
    assert.deepEqual(
      container.ports.map(({ containerPort }) => containerPort),
      [processo.porta],
    );
    const [porta] = container.ports;
    assert.deepEqual(container.livenessProbe.httpGet, { path: CAMINHOS_DE_SAUDE.vivo, port: porta?.name });
    assert.deepEqual(container.readinessProbe.httpGet, { path: CAMINHOS_DE_SAUDE.pronto, port: porta?.name });
    const segredos = container.env.flatMap(({ valueFrom }) => (valueFrom ? [valueFrom.secretKeyRef] : []));
    assert.deepEqual(
      segredos.map(({ key }) => key),
      processo.segredos,
    );
    assert.ok(
      segredos.every(({ name: segredo }) => segredo === 'a-ponte'),
      'one Secret, named in the docs',
    );
    assert.ok(container.resources.requests.memory && container.resources.limits.memory, 'memory sized');

    const servico = de('Service', nome);
    assert.deepEqual(servico.spec.ports, [{ name: porta?.name, port: processo.porta, targetPort: porta?.name }]);
    assert.equal(de('PodDisruptionBudget', nome).spec.minAvailable, 1);
  }
  const agente = de('Deployment', 'agente').spec.template?.spec.containers[0];
  assert.equal(
    agente?.env.find(({ name }) => name === 'MCP_URL')?.value,
    `http://servidor-mcp:${String(PROCESSOS['servidor-mcp'].porta)}/mcp`,
  );
});
