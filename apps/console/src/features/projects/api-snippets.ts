/** Ready-to-run requests that use a project, filled with its id and the gateway's base URL. */
export interface SnippetInput {
  baseUrl: string;
  projectId: string;
  model: string;
  knowledgeBaseId?: string | null;
}

export function apiSnippets({ baseUrl, projectId, model, knowledgeBaseId }: SnippetInput) {
  const base = baseUrl.replace(/\/+$/, '');
  const curl = [
    `curl -s ${base}/api/v1/chat \\`,
    `  -H "api-key: $API_KEY" -H 'content-type: application/json' \\`,
    `  -d '${JSON.stringify({ model, user_id: 'user-1', project_id: projectId, prompt: 'What do the materials say?' })}'`,
  ].join('\n');
  const python = [
    'from openai import OpenAI',
    '',
    `client = OpenAI(base_url="${base}/v1", api_key="API_KEY")`,
    'answer = client.chat.completions.create(',
    `    model="${model}",`,
    '    messages=[{"role": "user", "content": "What do the materials say?"}],',
    `    extra_body={"project_id": "${projectId}"},`,
    ')',
    'print(answer.choices[0].message.content)',
  ].join('\n');
  const typescript = [
    "import OpenAI from 'openai';",
    '',
    `const client = new OpenAI({ baseURL: '${base}/v1', apiKey: process.env.API_KEY });`,
    'const answer = await client.chat.completions.create({',
    `  model: '${model}',`,
    "  messages: [{ role: 'user', content: 'What do the materials say?' }],",
    `  // @ts-expect-error the gateway's extension field`,
    `  project_id: '${projectId}',`,
    '});',
    'console.log(answer.choices[0].message.content);',
  ].join('\n');
  const kb = knowledgeBaseId ?? '<KNOWLEDGE_BASE_ID>';
  const search = [
    `curl -s ${base}/api/v1/knowledge-bases/${kb}/search \\`,
    `  -H "api-key: $API_KEY" -H 'content-type: application/json' \\`,
    `  -d '{"query":"password reset","top_k":5}'`,
  ].join('\n');
  return { curl, python, typescript, search };
}
