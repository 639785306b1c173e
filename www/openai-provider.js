// A provider in the shape the summarize stage calls (`complete({ systemPrompt,
// messages, model, signal })` → `{ content, usage? }`), backed by any
// OpenAI-compatible `/chat/completions` endpoint. The key lives in this
// closure only: it is sent to the base URL the user typed, and nowhere else.

export function openAiCompatibleProvider({ baseUrl, apiKey }) {
  const endpoint = `${baseUrl.trim().replace(/\/+$/, '')}/chat/completions`;
  const headers = { 'content-type': 'application/json' };
  if (apiKey) headers.authorization = `Bearer ${apiKey}`;

  return {
    name: 'openai-compatible',
    async complete({ systemPrompt, messages, model, signal }) {
      const requestMessages = [
        ...(systemPrompt ? [{ role: 'system', content: systemPrompt }] : []),
        ...messages.map(({ role, content }) => ({ role, content })),
      ];
      // temperature 0: the same span should give the same summary (the
      // stage's determinism contract asks the caller for it).
      const response = await fetch(endpoint, {
        method: 'POST',
        headers,
        body: JSON.stringify({ model, messages: requestMessages, temperature: 0 }),
        signal,
      });
      if (!response.ok) {
        const detail = (await response.text().catch(() => '')).slice(0, 200);
        throw new Error(`${endpoint} answered HTTP ${response.status}${detail ? `: ${detail}` : ''}`);
      }
      const body = await response.json();
      const content = body?.choices?.[0]?.message?.content;
      if (typeof content !== 'string') {
        throw new Error(`${endpoint} answered without choices[0].message.content`);
      }
      const usage = body.usage;
      return usage && Number.isFinite(usage.prompt_tokens) && Number.isFinite(usage.completion_tokens)
        ? { content, usage: { input: usage.prompt_tokens, output: usage.completion_tokens } }
        : { content };
    },
  };
}
