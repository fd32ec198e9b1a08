/**
 * An API key's MCP tool allowlist entry: `server/tool`, either part a glob where `*` matches any run
 * of characters (`github/*`, `*\/search_*`, `*\/*`).
 */
export const MCP_TOOL_PATTERN = /^[a-z0-9_*-]{1,64}\/[^\s/]{1,200}$/;

function glob(pattern: string): RegExp {
  const escaped = pattern.split('*').map((p) => p.replace(/[.+?^${}()|[\]\\]/g, '\\$&'));
  return new RegExp(`^${escaped.join('.*')}$`);
}

/** True when `server/tool` matches one of the patterns; an empty list allows nothing. */
export function mcpToolAllowed(patterns: readonly string[] | undefined, server: string, tool: string): boolean {
  return (patterns ?? []).some((p) => {
    const slash = p.indexOf('/');
    if (slash < 0) return false;
    return glob(p.slice(0, slash)).test(server) && glob(p.slice(slash + 1)).test(tool);
  });
}
