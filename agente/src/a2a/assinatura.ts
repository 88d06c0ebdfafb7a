/**
 * AGENTE_CHAVE_CARD: the Agent Card signed as A2A §8.4 asks, with the SDK's
 * own signing (a JWS over the JCS canonical form of the card), and the
 * public key published beside the card as a JWKS, which the signature's
 * protected header names (`jku`) with the key's id (`kid`). The private key
 * is read once at start; no line ever shows it, only the file's path.
 */
import { createHash, createPrivateKey, createPublicKey, type JsonWebKey, type KeyObject } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { generateAgentCardSignature, type AgentCard, type AgentCardSignature } from '@a2a-js/sdk';
import { ConfiguracaoInvalida } from 'compartilhado/ambiente';
import type { Documento } from '../http/descoberta.js';

/** Where the public key is published, as a JWK Set (RFC 7517 §5). */
export const CAMINHO_JWKS = '/.well-known/jwks.json';

export interface ChaveDoCard {
  readonly privada: KeyObject;
  /** The JWS algorithm the key's type and size call for. */
  readonly alg: string;
  /** The public key's RFC 7638 thumbprint: the same at every start and for anyone who computes it from the JWKS. */
  readonly kid: string;
  readonly publica: JsonWebKey;
}

/** An EC key's curve, as Node names it, and the algorithm that signs with it (RFC 7518 §3.4). */
const CURVAS: Readonly<Record<string, string>> = { prime256v1: 'ES256', secp384r1: 'ES384', secp521r1: 'ES512' };

const SUPORTADAS = 'EC P-256 (ES256), P-384 (ES384) ou P-521 (ES512), Ed25519 (EdDSA) ou RSA de 2048 bits ou mais (RS256)';

/** The algorithm for a private key, or why it has none here (jose refuses RSA under 2048 bits; Ed448 and secp256k1 it does not sign). */
function algoritmo(chave: KeyObject): { alg: string } | { recusa: string } {
  const { asymmetricKeyType: tipo, asymmetricKeyDetails: detalhes } = chave;
  if (tipo === 'ec') {
    const alg = CURVAS[detalhes?.namedCurve ?? ''];
    return alg ? { alg } : { recusa: `a curva EC ${detalhes?.namedCurve ?? '?'} nao e suportada` };
  }
  if (tipo === 'ed25519') return { alg: 'EdDSA' };
  if (tipo === 'rsa') {
    const bits = detalhes?.modulusLength ?? 0;
    return bits >= 2048 ? { alg: 'RS256' } : { recusa: `uma chave RSA de ${String(bits)} bits e curta demais` };
  }
  return { recusa: `chaves ${tipo ?? 'desse tipo'} nao sao suportadas` };
}

/** The members RFC 7638 §3.2 hashes for each key type, in their lexicographic order. */
const MEMBROS_DA_IMPRESSAO: Readonly<Record<string, readonly string[]>> = {
  EC: ['crv', 'kty', 'x', 'y'],
  OKP: ['crv', 'kty', 'x'],
  RSA: ['e', 'kty', 'n'],
};

/** A public JWK's thumbprint (RFC 7638), base64url: what `kid` carries. */
export function impressaoDigital(jwk: JsonWebKey): string {
  const membros = MEMBROS_DA_IMPRESSAO[jwk.kty ?? ''] ?? [];
  const essencial = Object.fromEntries(membros.map((membro) => [membro, jwk[membro]]));
  return createHash('sha256').update(JSON.stringify(essencial)).digest('base64url');
}

/**
 * The key in a PEM file (PKCS#8, SEC1 or PKCS#1, unencrypted). Whatever is
 * wrong with it stops the agent with one line naming the variable and the
 * path, never the file's content.
 */
export function lerChaveDoCard(variavel: string, caminho: string): ChaveDoCard {
  const recusar = (motivo: string) => new ConfiguracaoInvalida(`${variavel}=${caminho}: ${motivo}`);
  let texto: string;
  try {
    texto = readFileSync(caminho, 'utf8');
  } catch (erro) {
    throw recusar(`nao consegui ler o arquivo (${(erro as NodeJS.ErrnoException).code ?? 'erro de leitura'})`);
  }
  if (/-----BEGIN ENCRYPTED PRIVATE KEY-----|Proc-Type: 4,ENCRYPTED/.test(texto))
    throw recusar('a chave privada esta cifrada com senha; use uma sem senha (o arquivo deve ser legivel so pelo agente)');
  if (/-----BEGIN (RSA )?PUBLIC KEY-----|-----BEGIN CERTIFICATE-----/.test(texto))
    throw recusar('o arquivo tem uma chave publica ou um certificado; o card e assinado com a chave privada');
  // createPrivateKey reads the first key and ignores the rest: which one signs would be a guess.
  if ((texto.match(/-----BEGIN [A-Z ]*PRIVATE KEY-----/g) ?? []).length > 1)
    throw recusar('o arquivo tem mais de uma chave privada; deixe so a que assina o card');
  let privada: KeyObject;
  try {
    privada = createPrivateKey(texto);
  } catch {
    throw recusar('nao e uma chave privada PEM (PKCS#8 "PRIVATE KEY", SEC1 "EC PRIVATE KEY" ou PKCS#1 "RSA PRIVATE KEY")');
  }
  const escolhido = algoritmo(privada);
  if ('recusa' in escolhido) throw recusar(`${escolhido.recusa}; use ${SUPORTADAS}`);
  const publica = createPublicKey(privada).export({ format: 'jwk' });
  return { privada, alg: escolhido.alg, kid: impressaoDigital(publica), publica };
}

export interface AssinaturaDoCard {
  /** The card as served, with its signature appended to `signatures`. */
  assinar<T extends object>(card: T): Promise<T & { signatures: AgentCardSignature[] }>;
  /** The JWKS, at CAMINHO_JWKS. */
  readonly jwks: Documento;
}

export function assinaturaDoCard(chave: ChaveDoCard, urlPublica: URL): AssinaturaDoCard {
  const jku = new URL(CAMINHO_JWKS, urlPublica).href;
  // The header §8.4.2 asks for: alg, typ "JOSE" and kid, with jku where the key is.
  const gerar = generateAgentCardSignature(chave.privada, { alg: chave.alg, typ: 'JOSE', kid: chave.kid, jku });
  const jwks = { keys: [{ ...chave.publica, kid: chave.kid, alg: chave.alg, use: 'sig' }] };
  return {
    // The card in its JSON form, as served: the SDK canonicalizes through AgentCard.fromJSON, and its
    // message form would lose the security schemes (a oneof) on the way, leaving them unsigned.
    assinar: async (card) => ({ ...card, signatures: (await gerar(card as unknown as AgentCard)).signatures }),
    jwks: { tipo: 'application/jwk-set+json', corpo: JSON.stringify(jwks, null, 2) },
  };
}
