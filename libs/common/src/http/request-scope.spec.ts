import { once } from 'node:events';
import { Agent, createServer, request, type IncomingMessage } from 'node:http';
import type { AddressInfo } from 'node:net';
import { setFlagsFromString } from 'node:v8';
import { runInNewContext } from 'node:vm';
import { bindRequestScope, RequestScope } from './request-scope';

setFlagsFromString('--expose-gc');
const gc = runInNewContext('gc') as () => void;

describe('RequestScope', () => {
  it('gives code inside the request its request, and nothing outside one', async () => {
    let inside: IncomingMessage | undefined;
    const server = createServer((req, res) =>
      bindRequestScope(req, res, () => {
        setImmediate(() => {
          inside = RequestScope.current();
          res.end('ok');
        });
      }),
    );
    server.listen(0, '127.0.0.1');
    await once(server, 'listening');
    const { port } = server.address() as AddressInfo;
    await new Promise<void>((resolve, reject) =>
      request({ port, host: '127.0.0.1', path: '/x' }, (res) => res.resume().on('end', resolve))
        .on('error', reject)
        .end(),
    );
    server.close();
    expect(inside?.url).toBe('/x');
    expect(RequestScope.current()).toBeUndefined();
  });

  it('does not keep an idle keep-alive connection’s last request alive', async () => {
    let last: WeakRef<IncomingMessage> | undefined;
    const server = createServer((req, res) =>
      bindRequestScope(req, res, () => {
        last = new WeakRef(req);
        // a body the size of a real prompt: what an idle connection would otherwise hold
        (req as IncomingMessage & { body?: unknown }).body = Buffer.alloc(1 << 20);
        res.end('ok');
      }),
    );
    server.keepAliveTimeout = 60_000;
    server.listen(0, '127.0.0.1');
    await once(server, 'listening');
    const { port } = server.address() as AddressInfo;
    const agent = new Agent({ keepAlive: true, maxSockets: 1 });
    try {
      await new Promise<void>((resolve, reject) =>
        request({ port, host: '127.0.0.1', path: '/', agent }, (res) => res.resume().on('end', resolve))
          .on('error', reject)
          .end(),
      );
      // the connection stays open (keep-alive): the agent keeps it as a free socket
      await new Promise((r) => setImmediate(r));
      expect(Object.values(agent.freeSockets).flat()).toHaveLength(1);
      for (let i = 0; i < 5 && last?.deref(); i++) {
        await new Promise((r) => setTimeout(r, 20));
        gc();
      }
      expect(last?.deref()).toBeUndefined();
    } finally {
      agent.destroy();
      server.closeAllConnections();
      server.close();
    }
  });
});
