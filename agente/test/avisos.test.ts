import assert from 'node:assert/strict';
import { EventEmitter, once } from 'node:events';
import { createServer, type IncomingHttpHeaders } from 'node:http';
import { describe, it, type TestContext } from 'node:test';
import { StreamResponse, TaskPushNotificationConfig } from '@a2a-js/sdk';
import { InMemoryPushNotificationStore, ServerCallContext, type PushNotificationStore } from '@a2a-js/sdk/server';
import { ConfiguracaoInvalida } from 'compartilhado/ambiente';
import { escutar } from 'compartilhado/processo';
import { Avisos, destinoRecusado, type OpcoesDosAvisos } from '../src/push/avisos.js';
import { lerConfiguracao } from '../src/config.js';

const LOOPBACK: ReadonlySet<string> = new Set(['localhost', '127.0.0.1', '::1']);

interface Recebido {
  readonly caminho: string;
  readonly headers: IncomingHttpHeaders;
  readonly corpo: string;
}

/** What the webhook answers to its n-th request (from 1): a status, possibly after a wait the test controls. */
type Resposta = (numero: number) => number | Promise<number>;

/** A real webhook on a free port, closed when the test ends; every request is recorded the moment it is fully read. */
async function webhook(t: TestContext, responder: Resposta = () => 200) {
  const recebidos: Recebido[] = [];
  const chegadas = new EventEmitter();
  const servidor = createServer((req, res) => {
    let corpo = '';
    req.setEncoding('utf8');
    req.on('data', (parte: string) => (corpo += parte));
    req.on('end', () => {
      recebidos.push({ caminho: req.url ?? '', headers: req.headers, corpo });
      chegadas.emit('chegou');
      void Promise.resolve(responder(recebidos.length)).then((status) => {
        res.writeHead(status, status >= 300 && status < 400 ? { location: '/outro' } : {}).end();
      });
    });
  });
  const porta = await escutar(servidor, 0, '127.0.0.1');
  const fechar = () =>
    new Promise<void>((resolver) => {
      // Held answers included: a failed assertion must not leave the run hanging.
      servidor.closeAllConnections();
      servidor.close(() => resolver());
    });
  t.after(fechar);
  return {
    url: `http://127.0.0.1:${porta}/hook`,
    recebidos,
    /** Resolves when the n-th request has arrived. */
    async ate(n: number): Promise<void> {
      while (recebidos.length < n) await once(chegadas, 'chegou');
    },
    fechar,
  };
}

/** A webhook answer held until the test lets it go. */
function trava() {
  let soltar: () => void = () => undefined;
  const solta = new Promise<void>((resolver) => (soltar = resolver));
  return { solta, soltar: () => soltar() };
}

const contexto = () => new ServerCallContext();

function estado(taskId: string, state: string): StreamResponse {
  return StreamResponse.fromJSON({ statusUpdate: { taskId, contextId: 'ctx-1', status: { state } } });
}

async function registrar(store: PushNotificationStore, taskId: string, url: string, extra: Record<string, unknown> = {}) {
  await store.save(taskId, contexto(), TaskPushNotificationConfig.fromJSON({ taskId, url, ...extra }));
}

function avisos(store: PushNotificationStore, opcoes: Partial<OpcoesDosAvisos> = {}) {
  const linhas: string[] = [];
  const enviados = new Avisos(store, { hosts: LOOPBACK, log: (linha) => linhas.push(linha), esperaInicialMs: 1, ...opcoes });
  return { enviados, linhas };
}

/** One COMPLETED notification of Task t1 to `url`, through a store of its own: the log lines it wrote. */
async function entregarUma(url: string, opcoes: Partial<OpcoesDosAvisos> = {}): Promise<string[]> {
  const store = new InMemoryPushNotificationStore();
  await registrar(store, 't1', url);
  const { enviados, linhas } = avisos(store, opcoes);
  await enviados.send(estado('t1', 'TASK_STATE_COMPLETED'), contexto());
  return linhas;
}

describe('Avisos: what a push notification carries', () => {
  it('POSTs the StreamResponse JSON as application/a2a+json, with the token header', async (t) => {
    const alvo = await webhook(t);
    const store = new InMemoryPushNotificationStore();
    await registrar(store, 't1', alvo.url, { token: 'tok-1' });
    const { enviados, linhas } = avisos(store);
    const evento = estado('t1', 'TASK_STATE_COMPLETED');

    await enviados.send(evento, contexto());

    assert.equal(alvo.recebidos.length, 1);
    const [recebido] = alvo.recebidos;
    assert.ok(recebido);
    assert.equal(recebido.caminho, '/hook');
    assert.equal(recebido.headers['content-type'], 'application/a2a+json');
    assert.equal(recebido.headers['x-a2a-notification-token'], 'tok-1');
    assert.equal(recebido.headers.authorization, undefined);
    assert.equal(recebido.corpo, JSON.stringify(StreamResponse.toJSON(evento)));
    assert.deepEqual(JSON.parse(recebido.corpo), {
      statusUpdate: { taskId: 't1', contextId: 'ctx-1', status: { state: 'TASK_STATE_COMPLETED' } },
    });
    assert.equal(linhas.length, 1);
    assert.match(
      linhas[0] ?? '',
      /^push task=t1 evento=statusUpdate:TASK_STATE_COMPLETED destino=http:\/\/127\.0\.0\.1:\d+ http=200 tentativa=1 \d+\.\dms$/,
    );
  });

  it('sends authentication as the Authorization header, beside the token when both are set', async (t) => {
    const alvo = await webhook(t);
    const store = new InMemoryPushNotificationStore();
    await registrar(store, 'so-auth', alvo.url, { authentication: { scheme: 'Bearer', credentials: 'cred-1' } });
    await registrar(store, 'os-dois', alvo.url, { token: 'tok-2', authentication: { scheme: 'Basic', credentials: 'dXNlcjpzZW5oYQ==' } });
    const { enviados } = avisos(store);

    await enviados.send(estado('so-auth', 'TASK_STATE_WORKING'), contexto());
    await enviados.send(estado('os-dois', 'TASK_STATE_WORKING'), contexto());

    const [soAuth, osDois] = alvo.recebidos;
    assert.ok(soAuth && osDois);
    assert.equal(soAuth.headers.authorization, 'Bearer cred-1');
    assert.equal(soAuth.headers['x-a2a-notification-token'], undefined);
    assert.equal(osDois.headers.authorization, 'Basic dXNlcjpzZW5oYQ==');
    assert.equal(osDois.headers['x-a2a-notification-token'], 'tok-2');
  });

  it('sends nothing for a Task without configs, nor for a Message outside any Task', async (t) => {
    const alvo = await webhook(t);
    const { enviados, linhas } = avisos(new InMemoryPushNotificationStore());

    await enviados.send(estado('sem-config', 'TASK_STATE_COMPLETED'), contexto());
    await enviados.send(StreamResponse.fromJSON({ message: { messageId: 'm1', role: 'ROLE_AGENT', parts: [{ text: 'oi' }] } }), contexto());

    assert.deepEqual(alvo.recebidos, []);
    assert.deepEqual(linhas, []);
  });
});

describe('Avisos: order and independence', () => {
  it('delivers the events of one Task in order, each after the previous one ended, even when the first is slow', async (t) => {
    const primeira = trava();
    const alvo = await webhook(t, async (numero) => {
      if (numero === 1) await primeira.solta;
      return 200;
    });
    const store = new InMemoryPushNotificationStore();
    await registrar(store, 't1', alvo.url);
    const inicios: string[] = [];
    const { enviados } = avisos(store, {
      fetch: (entrada, init) => {
        inicios.push(typeof init?.body === 'string' ? init.body : '');
        return fetch(entrada, init);
      },
    });
    const eventos = ['TASK_STATE_WORKING', 'TASK_STATE_INPUT_REQUIRED', 'TASK_STATE_COMPLETED'].map((state) => estado('t1', state));

    for (const evento of eventos) void enviados.send(evento, contexto());
    await alvo.ate(1);
    // The first request is on the wire and held: the others have not left, they wait for it.
    assert.equal(inicios.length, 1);
    primeira.soltar();
    await enviados.ocioso();

    const esperados = eventos.map((evento) => JSON.stringify(StreamResponse.toJSON(evento)));
    assert.deepEqual(inicios, esperados);
    assert.deepEqual(
      alvo.recebidos.map((recebido) => recebido.corpo),
      esperados,
    );
  });

  // The timeout only bounds a regression: a Task held behind another would wait for ever.
  it('does not hold one Task behind another', { timeout: 5000 }, async (t) => {
    const lenta = trava();
    const alvo = await webhook(t, async (numero) => {
      if (numero === 1) await lenta.solta;
      return 200;
    });
    const store = new InMemoryPushNotificationStore();
    await registrar(store, 'lenta', alvo.url);
    await registrar(store, 'rapida', alvo.url);
    const { enviados } = avisos(store);

    const daLenta = enviados.send(estado('lenta', 'TASK_STATE_WORKING'), contexto());
    await alvo.ate(1);
    await enviados.send(estado('rapida', 'TASK_STATE_WORKING'), contexto());
    assert.equal(alvo.recebidos.length, 2);
    lenta.soltar();
    await daLenta;
    await enviados.ocioso();
  });
});

describe('Avisos: failures and retries', () => {
  it('retries a 503 and delivers on the second attempt, one log line per attempt', async (t) => {
    const alvo = await webhook(t, (numero) => (numero === 1 ? 503 : 200));
    const linhas = await entregarUma(alvo.url);

    assert.equal(alvo.recebidos.length, 2);
    assert.equal(linhas.length, 2);
    assert.match(linhas[0] ?? '', / tentativa=1 \d+\.\dms falhou \(HTTP 503\); nova tentativa em 1 ms$/);
    assert.match(linhas[1] ?? '', / http=200 tentativa=2 \d+\.\dms$/);
  });

  it('gives up after the configured attempts, doubling the wait', async (t) => {
    const alvo = await webhook(t, () => 500);
    const linhas = await entregarUma(alvo.url, { tentativas: 3 });

    assert.equal(alvo.recebidos.length, 3);
    assert.deepEqual(
      linhas.map((linha) => linha.replace(/^.* tentativa=/, 'tentativa=').replace(/ \d+\.\dms /, ' ')),
      [
        'tentativa=1 falhou (HTTP 500); nova tentativa em 1 ms',
        'tentativa=2 falhou (HTTP 500); nova tentativa em 2 ms',
        'tentativa=3 falhou (HTTP 500); desistiu apos 3 tentativas',
      ],
    );
  });

  it('does not retry a 400', async (t) => {
    const alvo = await webhook(t, () => 400);
    const linhas = await entregarUma(alvo.url);

    assert.equal(alvo.recebidos.length, 1);
    assert.equal(linhas.length, 1);
    assert.match(linhas[0] ?? '', /falhou \(HTTP 400\); sem nova tentativa$/);
  });

  it('does not follow a 302, nor retry it', async (t) => {
    const alvo = await webhook(t, () => 302);
    const linhas = await entregarUma(alvo.url);

    assert.deepEqual(
      alvo.recebidos.map((recebido) => recebido.caminho),
      ['/hook'],
    );
    assert.match(linhas[0] ?? '', /falhou \(HTTP 302, redirecionamento nao seguido\); sem nova tentativa$/);
  });

  it('retries a webhook that does not answer within the deadline', async (t) => {
    const alvo = await webhook(t, () => new Promise<number>(() => undefined));
    const linhas = await entregarUma(alvo.url, { tentativas: 2, prazoMs: 50 });

    assert.equal(alvo.recebidos.length, 2);
    assert.match(linhas[0] ?? '', /falhou \(sem resposta em 50 ms\); nova tentativa em 1 ms$/);
    assert.match(linhas[1] ?? '', /falhou \(sem resposta em 50 ms\); desistiu apos 2 tentativas$/);
  });

  it('retries a refused connection, naming the network error', async (t) => {
    const fechado = await webhook(t);
    await fechado.fechar();
    const linhas = await entregarUma(fechado.url, { tentativas: 2 });

    assert.equal(linhas.length, 2);
    assert.match(linhas[0] ?? '', /falhou \(ECONNREFUSED\); nova tentativa em 1 ms$/);
    assert.match(linhas[1] ?? '', /falhou \(ECONNREFUSED\); desistiu apos 2 tentativas$/);
  });

  it('skips, with a log line, a webhook whose host is not allowed at delivery time', async (t) => {
    const alvo = await webhook(t);
    const linhas = await entregarUma(alvo.url, { hosts: new Set(['localhost']) });

    assert.deepEqual(alvo.recebidos, []);
    assert.equal(linhas.length, 1);
    assert.match(linhas[0] ?? '', /recusado: o host "127\.0\.0\.1" na porta \d+ nao esta em AGENTE_PUSH_HOSTS$/);
  });

  it('resolves, with a log line, when the store fails', async () => {
    const store = new InMemoryPushNotificationStore();
    store.load = () => Promise.reject(new Error('banco indisponivel'));
    const { enviados, linhas } = avisos(store);

    await enviados.send(estado('t1', 'TASK_STATE_COMPLETED'), contexto());

    assert.deepEqual(linhas, ['push task=t1 evento=statusUpdate:TASK_STATE_COMPLETED falhou ao ler as configuracoes: banco indisponivel']);
  });

  it('never logs the token, the credentials, the query string or the userinfo', async (t) => {
    const alvo = await webhook(t, (numero) => (numero === 1 ? 503 : 200));
    const store = new InMemoryPushNotificationStore();
    const segredos = { token: 'tok-secreto', authentication: { scheme: 'Bearer', credentials: 'cred-secreta' } };
    await registrar(store, 't1', `${alvo.url}?assinatura=query-secreta`, segredos);
    await registrar(store, 't2', alvo.url.replace('http://', 'http://fulano:senha-secreta@'), segredos);
    await registrar(store, 't3', alvo.url, { token: 'tok\nsecreto' });
    const { enviados, linhas } = avisos(store);

    await enviados.send(estado('t1', 'TASK_STATE_COMPLETED'), contexto());
    await enviados.send(estado('t2', 'TASK_STATE_COMPLETED'), contexto());
    await enviados.send(estado('t3', 'TASK_STATE_COMPLETED'), contexto());

    assert.equal(alvo.recebidos[1]?.caminho, '/hook?assinatura=query-secreta');
    assert.equal(linhas.length, 4);
    assert.match(linhas[2] ?? '', /recusado: a URL do webhook traz usuario ou senha/);
    assert.match(linhas[3] ?? '', /falhou \(token ou credenciais com caracteres invalidos num cabecalho HTTP\); sem nova tentativa$/);
    const log = linhas.join('\n');
    for (const segredo of ['secret', 'assinatura', 'fulano']) assert.equal(log.includes(segredo), false, segredo);
  });
});

describe('destinoRecusado', () => {
  it('accepts http and https to an allowed host, IPv6 in brackets included', () => {
    for (const url of ['http://127.0.0.1:4000/hook', 'https://localhost/a/b?c=d', 'http://[::1]:8080/hook', 'HTTP://LOCALHOST/'])
      assert.equal(destinoRecusado(url, LOOPBACK), undefined, url);
  });
  it('names what is wrong', () => {
    assert.equal(destinoRecusado('nao e url', LOOPBACK), 'a URL do webhook nao e uma URL absoluta valida');
    assert.equal(destinoRecusado('/hook', LOOPBACK), 'a URL do webhook nao e uma URL absoluta valida');
    assert.equal(destinoRecusado('ftp://localhost/hook', LOOPBACK), 'o esquema "ftp:" nao e aceito: apenas http e https');
    assert.equal(
      destinoRecusado('http://eu:senha@localhost/hook', LOOPBACK),
      'a URL do webhook traz usuario ou senha; credenciais vao em authentication, nunca na URL',
    );
    assert.equal(
      destinoRecusado('https://evil.example/hook', LOOPBACK),
      'o host "evil.example" na porta 443 nao esta em AGENTE_PUSH_HOSTS',
    );
    assert.match(destinoRecusado('http://[::2]/hook', LOOPBACK) ?? '', /^o host "::2" na porta 80 nao esta em AGENTE_PUSH_HOSTS/);
    assert.match(destinoRecusado('http://127.0.0.2/hook', LOOPBACK) ?? '', /^o host "127\.0\.0\.2"/);
  });
});

describe('AGENTE_PUSH_HOSTS', () => {
  const hosts = (valor: string | undefined) => [...lerConfiguracao({ AGENTE_PUSH_HOSTS: valor }).hostsDePush];

  it('defaults to loopback only', () => {
    assert.deepEqual(hosts(undefined), ['localhost', '127.0.0.1', '::1']);
    assert.deepEqual(hosts(''), ['localhost', '127.0.0.1', '::1']);
    assert.deepEqual(hosts(' , '), ['localhost', '127.0.0.1', '::1']);
  });
  it('reads a list: trimmed, lowercased, IPv6 without brackets, written as URLs write them', () => {
    assert.deepEqual(hosts(' Hooks.Example.com ,10.0.0.5, [::1],fe80::1 '), ['hooks.example.com', '10.0.0.5', '::1', 'fe80::1']);
    assert.deepEqual(hosts('0:0:0:0:0:0:0:1,127.1'), ['::1', '127.0.0.1']);
  });
  it('reads host:port entries, IPv6 in brackets, each allowing that port only', () => {
    assert.deepEqual(hosts('LocalHost:9000,[::1]:80,127.1:443,hooks.example.com'), [
      'localhost:9000',
      '[::1]:80',
      '127.0.0.1:443',
      'hooks.example.com',
    ]);
    const permitidos = new Set(hosts('localhost:9000,[::1]:80,127.0.0.1:443'));
    for (const url of ['http://localhost:9000/a', 'http://[::1]/a', 'http://[::1]:80/a', 'https://127.0.0.1/a'])
      assert.equal(destinoRecusado(url, permitidos), undefined, url);
    assert.equal(destinoRecusado('http://localhost:9001/a', permitidos), 'o host "localhost" na porta 9001 nao esta em AGENTE_PUSH_HOSTS');
    assert.equal(destinoRecusado('https://[::1]/a', permitidos), 'o host "::1" na porta 443 nao esta em AGENTE_PUSH_HOSTS');
    assert.equal(destinoRecusado('http://127.0.0.1/a', permitidos), 'o host "127.0.0.1" na porta 80 nao esta em AGENTE_PUSH_HOSTS');
  });
  it('refuses an entry with a scheme, bad port, path or space, naming it', () => {
    for (const entrada of [
      'http://hooks.example.com',
      'localhost:99999',
      'localhost:',
      '::1:9000x',
      'hooks.example.com/hook',
      'hooks example.com',
      '[localhost]',
      'eu@localhost',
    ])
      assert.throws(
        () => hosts(`localhost,${entrada}`),
        (erro: unknown) =>
          erro instanceof ConfiguracaoInvalida &&
          erro.message.startsWith(`AGENTE_PUSH_HOSTS=localhost,${entrada}: "${entrada.toLowerCase()}" nao e um host;`),
        entrada,
      );
  });
});
