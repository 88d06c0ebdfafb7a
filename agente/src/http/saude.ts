/**
 * GET /healthz and /readyz on the agent (compartilhado/saude): before the
 * A2A routes, identity and the Origin rule, which guard the Tasks, not the
 * process's health. While the agent starts, /readyz says so (iniciando.ts).
 */
import { responderSaude, type Prontidao } from 'compartilhado/saude';
import type { RequestHandler } from 'express';

export const servirSaude =
  (pronto: Prontidao): RequestHandler =>
  (req, res, next) => {
    responderSaude(req.method, req.path, pronto).then((saude) => {
      if (!saude) {
        next();
        return;
      }
      // express leaves the body out of a HEAD answer itself.
      res.status(saude.status).set(saude.headers).send(saude.corpo);
    }, next);
  };
