/**
 * The public documents as served at each moment: the card (signed, with the
 * JWKS beside it, when AGENTE_CHAVE_CARD is set) and what is published with
 * it. A new card (the generic bridge's, when its servers' tools change) is
 * signed before it is served, and new cards are published in the order
 * they came: a signature that takes longer never puts an older card back.
 */
import { CAMINHO_JWKS, type AssinaturaDoCard } from '../a2a/assinatura.js';
import type { Documento } from './descoberta.js';

type Montar = (card: object) => ReadonlyMap<string, Documento>;

export class Vitrine {
  private fila = Promise.resolve();

  private constructor(
    private documentos: ReadonlyMap<string, Documento>,
    private readonly montar: Montar,
    private readonly assinatura: AssinaturaDoCard | undefined,
    private readonly log: (linha: string) => void,
  ) {}

  static async abrir(card: object, montar: Montar, assinatura: AssinaturaDoCard | undefined, log: (linha: string) => void) {
    return new Vitrine(await documentosDe(card, montar, assinatura), montar, assinatura, log);
  }

  documento(caminho: string): Documento | undefined {
    return this.documentos.get(caminho);
  }

  /** Serves `card` once signed, after every card given before it. */
  republicar(card: object): void {
    this.fila = this.fila.then(async () => {
      try {
        this.documentos = await documentosDe(card, this.montar, this.assinatura);
        if (this.assinatura) this.log('card republicado e assinado de novo');
      } catch (erro) {
        this.log(`card novo nao assinado, o anterior continua servido: ${erro instanceof Error ? erro.message : String(erro)}`);
      }
    });
  }
}

async function documentosDe(card: object, montar: Montar, assinatura: AssinaturaDoCard | undefined) {
  if (!assinatura) return montar(card);
  return new Map([...montar(await assinatura.assinar(card)), [CAMINHO_JWKS, assinatura.jwks]]);
}
