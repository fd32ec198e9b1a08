/** The name a tool has on the gateway's own MCP endpoint: `<server>__<tool>`. */
export function gatewayToolName(server: string, tool: string): string {
  return `${server}__${tool}`;
}

/** `<server>__<tool>` → its parts (server names never contain `__`, so the first one splits). */
export function splitGatewayToolName(name: string): { server: string; tool: string } | null {
  const i = name.indexOf('__');
  if (i <= 0 || i + 2 >= name.length) return null;
  return { server: name.slice(0, i), tool: name.slice(i + 2) };
}
