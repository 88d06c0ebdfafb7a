/**
 * Debian's Chromium driven by playwright-core, for the console's tests. A
 * missing browser fails (`.ci/run` installs it); nothing is skipped. Each
 * flow may leave a screenshot of its end in test/capturas/ (not committed);
 * with CAPTURAS_DOS_DOCS=1, the ones the docs show are written to
 * docs/imagens/ too.
 */
import { randomBytes } from 'node:crypto';
import { mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { chromium, type BrowserContext, type Locator, type Page } from 'playwright-core';

const CAPTURAS = new URL('../capturas/', import.meta.url);
const IMAGENS_DOS_DOCS = new URL('../../docs/imagens/', import.meta.url);
const CHROMIUM = '/usr/bin/chromium';

export async function abrirNavegador(): Promise<{ contexto: BrowserContext; fechar: () => Promise<void> }> {
  const perfil = mkdtempSync(join(tmpdir(), 'ponte-chromium-'));
  const contexto = await chromium.launchPersistentContext(perfil, {
    executablePath: CHROMIUM,
    headless: true,
    args: [
      '--headless',
      '--no-sandbox',
      '--disable-gpu',
      '--disable-background-networking',
      '--no-first-run',
      '--disable-sync',
      '--disable-component-update',
    ],
  });
  return {
    contexto,
    fechar: async () => {
      await contexto.close();
      rmSync(perfil, { recursive: true, force: true });
    },
  };
}

/** A screenshot of the page (or of one part of it) in test/capturas/; `nosDocs`: also in docs/imagens/ with CAPTURAS_DOS_DOCS=1. */
export async function capturar(alvo: Page | Locator, nome: string, nosDocs = false): Promise<void> {
  const pastas = [CAPTURAS, ...(nosDocs && process.env.CAPTURAS_DOS_DOCS === '1' ? [IMAGENS_DOS_DOCS] : [])];
  for (const pasta of pastas) {
    mkdirSync(pasta, { recursive: true });
    const path = new URL(`${nome}.png`, pasta).pathname;
    await ('goto' in alvo ? alvo.screenshot({ path, fullPage: true }) : alvo.screenshot({ path }));
  }
}

/**
 * With AGENTE_TOKENS: opens the page, gives a token the agent does not
 * know (its refusal is shown where the outcome goes), then `certo`.
 * Returns the Token field.
 */
export async function entrarComToken(pagina: Page, url: string, certo: string): Promise<Locator> {
  await pagina.goto(url);
  const token = pagina.getByLabel('Token', { exact: true });
  await token.fill(randomBytes(24).toString('base64url'));
  await token.press('Enter');
  await pagina
    .getByRole('region', { name: 'Resultado' })
    .getByText(/token desconhecido/)
    .waitFor();
  await token.fill(certo);
  await token.press('Enter');
  return token;
}
