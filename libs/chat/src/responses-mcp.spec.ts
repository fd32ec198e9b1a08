import { ApiError } from '@app/common';
import { modelToolName, needsApproval, responsesMcpTools, splitMcpInput } from './responses-mcp';

function refusal(f: () => unknown): { param: string | null } {
  try {
    f();
  } catch (err) {
    if (err instanceof ApiError) return { param: err.param ?? null };
    throw err;
  }
  throw new Error('expected a 400');
}

describe('Responses mcp tools', () => {
  it('reads mcp tools in place, echoing them without headers', () => {
    const [t] = responsesMcpTools([
      { type: 'function', name: 'f' },
      {
        type: 'mcp',
        server_label: 'docs',
        server_url: 'https://mcp.example.com/mcp',
        headers: { Authorization: 'Bearer secret' },
        allowed_tools: { tool_names: ['search'] },
        require_approval: 'never',
      },
    ]);
    expect(t).toMatchObject({ index: 1, label: 'docs', id: null, allowedTools: ['search'] });
    expect(t.headers).toEqual({ Authorization: 'Bearer secret' });
    expect(t.echo.headers).toBeNull();
    expect(JSON.stringify(t.echo)).not.toContain('secret');
  });

  it('approval: always by default, never, and per-tool lists', () => {
    const tool = (require_approval?: unknown) =>
      responsesMcpTools([{ type: 'mcp', server_label: 's', server_id: 'mcp_1', require_approval }])[0];
    expect(needsApproval(tool(undefined), 'x')).toBe(true);
    expect(needsApproval(tool('always'), 'x')).toBe(true);
    expect(needsApproval(tool('never'), 'x')).toBe(false);
    const mixed = tool({ never: { tool_names: ['read'] } });
    expect(needsApproval(mixed, 'read')).toBe(false);
    expect(needsApproval(mixed, 'write')).toBe(true);
    const only = tool({ always: { tool_names: ['write'] } });
    expect(needsApproval(only, 'write')).toBe(true);
    expect(needsApproval(only, 'read')).toBe(false);
  });

  it('refuses bad tools naming the field', () => {
    const param = (t: unknown) => refusal(() => responsesMcpTools([t])).param;
    expect(param({ type: 'mcp', server_label: 'a b', server_id: 'x' })).toBe('tools[0].server_label');
    expect(param({ type: 'mcp', server_label: 'a', server_id: 'x', server_url: 'https://h/' })).toBe(
      'tools[0].server_url',
    );
    expect(param({ type: 'mcp', server_label: 'a', server_url: 'ftp://h/' })).toBe('tools[0].server_url');
    expect(param({ type: 'mcp', server_label: 'a', server_id: 'x', allowed_tools: [1] })).toBe(
      'tools[0].allowed_tools',
    );
    expect(
      refusal(() =>
        responsesMcpTools([
          { type: 'mcp', server_label: 'a', server_id: 'x' },
          { type: 'mcp', server_label: 'a', server_id: 'y' },
        ]),
      ).param,
    ).toBe('tools[1].server_label');
  });

  it('splits approval answers out of the input and drops echoed mcp items', () => {
    const out = splitMcpInput([
      { type: 'mcp_list_tools', id: 'mcpl_1', server_label: 's', tools: [] },
      { type: 'mcp_approval_response', approval_request_id: 'mcpr_1', approve: true },
      { role: 'user', content: 'go on' },
    ]);
    expect(out.approvals).toEqual([{ requestId: 'mcpr_1', approve: true }]);
    expect(out.input).toEqual([{ role: 'user', content: 'go on' }]);
    expect(refusal(() => splitMcpInput([{ type: 'mcp_approval_response', approval_request_id: 'r' }])).param).toBe(
      'input[0].approve',
    );
  });

  it('names tools for the model within the function-name alphabet', () => {
    expect(modelToolName('docs', 'search.v2')).toBe('docs__search_v2');
    expect(modelToolName('d'.repeat(40), 't'.repeat(40))).toHaveLength(64);
  });
});
