/** The database's schema, made or brought up to date when the agent opens it. */
import { spawn } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { urlSemSenha } from 'compartilhado/ambiente';

/**
 * The SDK's own schema tool (`a2a-db upgrade`), run once at start: safe to
 * repeat. The URL goes by environment, not argv (where `ps` would show a
 * password); a failure is told in one line, without it.
 */
export async function migrar(urlDoBanco: string): Promise<void> {
  const cli = fileURLToPath(
    new URL('./cli/a2a_db.js', import.meta.resolve('@a2a-js/sdk/server/database').replace(/server\/database\/index\.js$/, '')),
  );
  await new Promise<void>((resolver, rejeitar) => {
    const filho = spawn(process.execPath, [cli, 'upgrade'], {
      stdio: ['ignore', 'ignore', 'pipe'],
      env: { ...process.env, DATABASE_URL: urlDoBanco },
    });
    let erro = '';
    filho.stderr.on('data', (parte: Buffer) => {
      erro += parte.toString();
    });
    filho.once('error', rejeitar);
    filho.once('exit', (codigo) => {
      if (codigo === 0) {
        resolver();
        return;
      }
      const [primeira = ''] = erro.trim().split('\n', 1);
      rejeitar(
        new Error(
          `TASKS_DB: nao consegui preparar o banco em ${urlSemSenha(urlDoBanco)} (a2a-db upgrade: ${primeira.replaceAll(urlDoBanco, urlSemSenha(urlDoBanco))})`,
        ),
      );
    });
  });
}
