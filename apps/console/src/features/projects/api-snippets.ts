/** Ready-to-run requests that use a project, filled with its id and the gateway's base URL. */
export interface SnippetInput {
  baseUrl: string;
  projectId: string;
  model: string;
  knowledgeBaseId?: string | null;
  /** The title of one of the project's materials: the question asks about it. */
  materialTitle?: string | null;
}

/** The question the snippets ask: about a material of the project when it has one. */
export function snippetQuestion(materialTitle?: string | null): string {
  return materialTitle ? `What are the key points of "${materialTitle}"?` : 'What do the materials say?';
}

/** The body of the curl snippet's request (also what the "Run" button sends). */
export function chatRequestBody({ projectId, model, materialTitle }: SnippetInput) {
  return { model, user_id: 'user-1', project_id: projectId, prompt: snippetQuestion(materialTitle) };
}

/** Single-quoted for a POSIX shell: ' becomes '\'' */
const shellQuote = (s: string) => `'${s.replace(/'/g, `'\\''`)}'`;

/**
 * Every snippet runs as pasted: the key comes from the environment ($GATEWAY_API_KEY in the shell,
 * os.environ in Python, process.env in Node) and nothing is left to fill in. The knowledge-base
 * search is omitted when the project has no knowledge base.
 */
export function apiSnippets(input: SnippetInput) {
  const { baseUrl, projectId, model, knowledgeBaseId, materialTitle } = input;
  const base = baseUrl.replace(/\/+$/, '');
  const question = snippetQuestion(materialTitle);
  const curl = [
    `curl -s ${base}/api/v1/chat \\`,
    `  -H "api-key: $GATEWAY_API_KEY" -H 'content-type: application/json' \\`,
    `  -d ${shellQuote(JSON.stringify(chatRequestBody(input)))}`,
  ].join('\n');
  const python = [
    'import os',
    'from openai import OpenAI',
    '',
    `client = OpenAI(base_url="${base}/v1", api_key=os.environ["GATEWAY_API_KEY"])`,
    'answer = client.chat.completions.create(',
    `    model=${JSON.stringify(model)},`,
    `    messages=[{"role": "user", "content": ${JSON.stringify(question)}}],`,
    `    extra_body={"project_id": "${projectId}"},`,
    ')',
    'print(answer.choices[0].message.content)',
  ].join('\n');
  const typescript = [
    "import OpenAI from 'openai';",
    '',
    `const client = new OpenAI({ baseURL: '${base}/v1', apiKey: process.env.GATEWAY_API_KEY });`,
    'const answer = await client.chat.completions.create({',
    `  model: ${JSON.stringify(model)},`,
    `  messages: [{ role: 'user', content: ${JSON.stringify(question)} }],`,
    `  // @ts-expect-error the gateway's extension field`,
    `  project_id: '${projectId}',`,
    '});',
    'console.log(answer.choices[0].message.content);',
  ].join('\n');
  const search = knowledgeBaseId
    ? [
        `curl -s ${base}/api/v1/knowledge-bases/${knowledgeBaseId}/search \\`,
        `  -H "api-key: $GATEWAY_API_KEY" -H 'content-type: application/json' \\`,
        `  -d ${shellQuote(JSON.stringify({ query: question, top_k: 5 }))}`,
      ].join('\n')
    : null;
  return { curl, python, typescript, search };
}
