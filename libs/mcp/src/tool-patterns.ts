/** A tool allowlist pattern: `server/tool`, either part a glob where `*` matches any run of characters. */
export const TOOL_PATTERN = /^[a-z0-9_*-]{1,64}\/[^\s/]{1,200}$/;

/** The name a tool has on the gateway's own MCP endpoint and in /v1/responses: `<server>__<tool>`. */
export function gatewayToolName(server: string, tool: string): string {
  return `${server}__${tool}`;
}

/** `<server>__<tool>` → its parts (server names never contain `__`, so the first one splits). */
export function splitGatewayToolName(name: string): { server: string; tool: string } | null {
  const i = name.indexOf('__');
  if (i <= 0 || i + 2 >= name.length) return null;
  return { server: name.slice(0, i), tool: name.slice(i + 2) };
}

function glob(pattern: string): RegExp {
  const escaped = pattern.split('*').map((p) => p.replace(/[.+?^${}()|[\]\\]/g, '\\$&'));
  return new RegExp(`^${escaped.join('.*')}$`);
}

/** True when `server/tool` matches one of the patterns; an empty list allows nothing. */
export function toolAllowed(patterns: readonly string[], server: string, tool: string): boolean {
  return patterns.some((p) => {
    const slash = p.indexOf('/');
    if (slash < 0) return false;
    return glob(p.slice(0, slash)).test(server) && glob(p.slice(slash + 1)).test(tool);
  });
}
