/**
 * MCP_TOKENS: every /mcp request must carry `Authorization: Bearer <token>`
 * of a configured identity. The SDK's bearer-auth pieces parse the header,
 * run our static verifier and build the 401 with its `WWW-Authenticate:
 * Bearer ... resource_metadata="..."` challenge (the MCP authorization
 * spec); here is only what they leave to the server: which tokens exist,
 * and refusing a request that sends the header twice.
 */
import type { IncomingMessage } from 'node:http';
import {
  bearerAuthChallengeResponse,
  getOAuthProtectedResourceMetadataUrl,
  OAuthError,
  OAuthErrorCode,
  verifyBearerToken,
  type OAuthTokenVerifier,
} from '@modelcontextprotocol/server';
import { tokenDoBearer, type Identidades } from 'compartilhado/identidade';

/** A static token does not expire; the SDK refuses a token without expiry, so each check vouches for the next hour. */
const VALIDADE_DE_CADA_VERIFICACAO_S = 3600;

export type Acesso = (req: IncomingMessage) => Promise<{ readonly quem: string } | { readonly recusa: Response; readonly motivo: string }>;

/** The RFC 9728 document (Protected Resource Metadata) for `urlDoMcp`, and where it is served. */
export function metadadosDoRecurso(urlDoMcp: URL): { readonly url: URL; readonly corpo: string } {
  const url = new URL(getOAuthProtectedResourceMetadataUrl(urlDoMcp));
  // No authorization server: the tokens are static, handed out by whoever runs the server.
  const corpo = JSON.stringify(
    { resource: urlDoMcp.href, bearer_methods_supported: ['header'], resource_name: 'Central de Salas da Hill Valley Tech (MCP)' },
    null,
    2,
  );
  return { url, corpo };
}

export function criarAcesso(identidades: Identidades, urlDosMetadados: URL): Acesso {
  const verifier: OAuthTokenVerifier = {
    verifyAccessToken: (token) => {
      const quem = identidades.quem(token);
      if (quem === undefined) return Promise.reject(new OAuthError(OAuthErrorCode.InvalidToken, 'Token desconhecido'));
      return Promise.resolve({
        token,
        clientId: quem,
        scopes: [],
        expiresAt: Math.floor(Date.now() / 1000) + VALIDADE_DE_CADA_VERIFICACAO_S,
      });
    },
  };
  const resourceMetadataUrl = urlDosMetadados.href;
  return async (req) => {
    try {
      const cabecalhos = req.headersDistinct.authorization ?? [];
      // Node keeps only the first Authorization header; two of them are ambiguous, and refused.
      if (cabecalhos.length > 1) throw new OAuthError(OAuthErrorCode.InvalidToken, 'Mais de um cabecalho Authorization');
      const [cabecalho] = cabecalhos;
      // The SDK's parser would let trailing words through (`Bearer <token> lixo`): refused before it.
      if (cabecalho !== undefined && cabecalho.includes(' ') && tokenDoBearer(cabecalho) === undefined)
        throw new OAuthError(OAuthErrorCode.InvalidToken, "Invalid Authorization header format, expected 'Bearer TOKEN'");
      const { clientId } = await verifyBearerToken(cabecalho, { verifier, resourceMetadataUrl });
      return { quem: clientId };
    } catch (erro) {
      // The log line says why (never the header's value).
      const motivo = erro instanceof OAuthError ? erro.message : 'falha ao verificar o token';
      return { recusa: bearerAuthChallengeResponse(erro, { resourceMetadataUrl }), motivo };
    }
  };
}
