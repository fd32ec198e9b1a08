import { MCP_TOOL_PATTERN, mcpToolAllowed } from './mcp-tool-allowlist';

describe('MCP tool allowlist', () => {
  it('allows nothing when empty', () => {
    expect(mcpToolAllowed([], 'github', 'search')).toBe(false);
    expect(mcpToolAllowed(undefined, 'github', 'search')).toBe(false);
  });

  it('matches exact names and globs on either side', () => {
    expect(mcpToolAllowed(['github/search'], 'github', 'search')).toBe(true);
    expect(mcpToolAllowed(['github/search'], 'github', 'search2')).toBe(false);
    expect(mcpToolAllowed(['github/*'], 'github', 'anything')).toBe(true);
    expect(mcpToolAllowed(['github/*'], 'gitlab', 'anything')).toBe(false);
    expect(mcpToolAllowed(['*/search_*'], 'docs', 'search_pages')).toBe(true);
    expect(mcpToolAllowed(['*/search_*'], 'docs', 'list_pages')).toBe(false);
    expect(mcpToolAllowed(['*/*'], 'a', 'b')).toBe(true);
  });

  it('takes regex characters of tool names literally', () => {
    expect(mcpToolAllowed(['docs/a.b'], 'docs', 'aXb')).toBe(false);
    expect(mcpToolAllowed(['docs/a.b'], 'docs', 'a.b')).toBe(true);
  });

  it('accepts server/tool patterns only', () => {
    for (const ok of ['github/*', '*/*', 'my-server/tool.name', 'a_b/x']) expect(MCP_TOOL_PATTERN.test(ok)).toBe(true);
    for (const bad of ['github', 'github/', '/x', 'a/b/c', 'GitHub/x', 'a b/x'])
      expect(MCP_TOOL_PATTERN.test(bad)).toBe(false);
  });
});
