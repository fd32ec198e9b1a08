import * as http from 'node:http';
import type { NestApplicationOptions } from '@nestjs/common';
import { ExpressAdapter } from '@nestjs/platform-express';
import type { Application } from 'express';

type MessageClass = typeof http.IncomingMessage | typeof http.ServerResponse;

/**
 * A subclass of Node's request (or response) class whose instances are born with Express's request
 * (or response) prototype as their prototype's parent, installed as Express's `app.request` (or
 * `app.response`): Express's `Object.setPrototypeOf(req, app.request)` on entry then finds the
 * prototype already in place and changes nothing. Express's methods and `req.app` are inherited as
 * before, and `instanceof http.IncomingMessage` / `http.ServerResponse` still holds.
 */
function bornExpress<C extends MessageClass>(base: C, app: Application, key: 'request' | 'response'): C {
  const prototypes = app as unknown as Record<typeof key, object>;
  const born = class extends (base as typeof http.IncomingMessage) {};
  Object.setPrototypeOf(born.prototype, prototypes[key]);
  prototypes[key] = born.prototype;
  return born as unknown as C;
}

/**
 * Nest's Express adapter with an HTTP server that makes each request and response with Express's
 * prototypes from the start.
 *
 * Express 5 swaps the prototype of every request and response as it enters the app
 * (`Object.setPrototypeOf`). On Node 20's V8 an object whose prototype is changed after it was made
 * outlives young-generation collections: each request, its response and everything they reach
 * (closures, headers, the body, the request context) were promoted to the old generation and freed
 * only by a full collection — ≈ 2 MB promoted per scavenge at 200 req/s, scavenges of 7–12 ms and a
 * mark-compact every few seconds on a slow machine (docs/performance.md, "What Express's prototype
 * swap cost"). With the prototypes in place from birth they die young like any short-lived object.
 *
 * Only the server options the gateway uses are covered; with HTTPS, `return503OnClosing` or
 * `forceCloseConnections` the adapter builds Nest's own server.
 */
export class GatewayExpressAdapter extends ExpressAdapter {
  override initHttpServer(options: NestApplicationOptions): void {
    if (options?.httpsOptions || options?.return503OnClosing || options?.forceCloseConnections) {
      super.initHttpServer(options);
      return;
    }
    const app = this.getInstance<Application>();
    const server = http.createServer(
      {
        IncomingMessage: bornExpress(http.IncomingMessage, app, 'request'),
        ServerResponse: bornExpress(http.ServerResponse, app, 'response'),
      },
      app,
    );
    this.setHttpServer(server);
  }
}
