import '@testing-library/jest-dom/vitest';
import { afterEach, vi } from 'vitest';
import { cleanup } from '@testing-library/react';
import '../i18n';

// jsdom lacks these browser APIs the component library uses
Object.defineProperty(window, 'matchMedia', {
  writable: true,
  value: (query: string) => ({
    matches: false,
    media: query,
    onchange: null,
    addListener: vi.fn(),
    removeListener: vi.fn(),
    addEventListener: vi.fn(),
    removeEventListener: vi.fn(),
    dispatchEvent: vi.fn(),
  }),
});
class ResizeObserverStub {
  observe() {}
  unobserve() {}
  disconnect() {}
}
window.ResizeObserver = ResizeObserverStub as unknown as typeof ResizeObserver;
window.HTMLElement.prototype.scrollIntoView = () => {};
// autosized text areas listen for web fonts loading
if (!('fonts' in document))
  Object.defineProperty(document, 'fonts', {
    value: { ready: Promise.resolve(), addEventListener() {}, removeEventListener() {} },
  });

/** The HTTP answers of a test: each call of fetch goes to `server.handle`, set per test. */
export const server = {
  calls: [] as { method: string; url: string; headers: Headers; body: string | null }[],
  handle: (_req: { method: string; path: string; body: string | null; query: URLSearchParams }): Response =>
    new Response(JSON.stringify({ error: { message: 'not handled in test' } }), { status: 404 }),
};
vi.stubGlobal('fetch', async (input: RequestInfo | URL, init?: RequestInit) => {
  const req = input instanceof Request ? input : new Request(new URL(String(input), window.location.origin), init);
  const body = req.body ? await req.text() : null;
  server.calls.push({ method: req.method, url: req.url, headers: req.headers, body });
  const url = new URL(req.url);
  return server.handle({ method: req.method, path: url.pathname, body, query: url.searchParams });
});

afterEach(() => {
  cleanup();
  server.calls = [];
  localStorage.clear();
});

export function json(body: unknown, status = 200): Response {
  return new Response(JSON.stringify(body), { status, headers: { 'content-type': 'application/json' } });
}
