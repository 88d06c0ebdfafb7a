/** The Origin and Host rule both processes share (compartilhado/origem), as a pure function. */
import assert from 'node:assert/strict';
import { it } from 'node:test';
import { ConfiguracaoInvalida } from 'compartilhado/ambiente';
import { ehLoopback, lerOrigens, regraDeOrigem } from 'compartilhado/origem';

it('a loopback listener: loopback names on its own port, its public origin and the listed ones; its Host too', () => {
  const regra = regraDeOrigem({
    porta: 7300,
    host: '127.0.0.1',
    publica: new URL('https://salas.exemplo.com/a2a'),
    listadas: ['http://localhost:5173'],
  });
  for (const origin of [
    undefined,
    '',
    'http://localhost:7300',
    'http://127.0.0.1:7300',
    'http://[::1]:7300',
    'https://salas.exemplo.com',
    'http://localhost:5173',
  ])
    assert.equal(regra({ origin, host: 'localhost:7300' }), undefined, String(origin));
  for (const origin of ['http://localhost:7301', 'https://localhost:7300', 'http://salas.exemplo.com', 'null', 'http://evil.example'])
    assert.equal(regra({ origin, host: 'localhost:7300' }), `Invalid Origin: ${origin}`);
  for (const host of ['LOCALHOST:7300', '[::1]:7300', 'salas.exemplo.com', 'localhost:5173'])
    assert.equal(regra({ host }), undefined, host);
  for (const host of ['evil.example:7300', 'localhost:7301', 'localhost']) assert.equal(regra({ host }), `Invalid Host: ${host}`);
  assert.equal(regra({}), 'Invalid Host: (ausente)');
});

it('a listener on every interface checks Origin only; one on another loopback address or on port 80 names itself', () => {
  const todas = regraDeOrigem({ porta: 7300, host: '0.0.0.0', listadas: [] });
  assert.equal(todas({ host: 'salas.lan:7300' }), undefined);
  assert.equal(todas({ origin: 'http://salas.lan:7300', host: 'salas.lan:7300' }), 'Invalid Origin: http://salas.lan:7300');
  const outra = regraDeOrigem({ porta: 7300, host: '127.0.0.2', listadas: [] });
  assert.equal(outra({ origin: 'http://127.0.0.2:7300', host: '127.0.0.2:7300' }), undefined);
  for (const host of ['0:0:0:0:0:0:0:1', '::ffff:127.0.0.1', '127.0.0.2', 'localhost']) assert.ok(ehLoopback(host), host);
  for (const host of ['0.0.0.0', '::', '10.0.0.1', '::ffff:10.0.0.1', 'salas.lan']) assert.ok(!ehLoopback(host), host);
  const ipv6 = regraDeOrigem({ porta: 80, host: '::1', listadas: [] });
  assert.equal(ipv6({ origin: 'http://localhost', host: '[::1]' }), undefined);
});

it('AGENTE_ORIGENS / MCP_ORIGENS: exact http(s) origins, comma-separated; anything else stops the process', () => {
  assert.deepEqual(lerOrigens({}, 'AGENTE_ORIGENS'), []);
  assert.deepEqual(lerOrigens({ AGENTE_ORIGENS: 'http://localhost:5173, https://Salas.Exemplo.com/' }, 'AGENTE_ORIGENS'), [
    'http://localhost:5173',
    'https://salas.exemplo.com',
  ]);
  for (const entrada of ['localhost:5173', 'http://a.example/app', 'ftp://a.example', 'http://a.example?x=1', 'http://a.example:80'])
    assert.throws(
      () => lerOrigens({ MCP_ORIGENS: entrada }, 'MCP_ORIGENS'),
      (erro) => erro instanceof ConfiguracaoInvalida && erro.message.includes(`"${entrada}" nao e uma origem`),
    );
});
