// A provider in the shape the summarize stage calls —
// `{ name, complete({ systemPrompt, messages, model, signal }) → { content, usage } }` —
// over any OpenAI-compatible `POST {baseUrl}/chat/completions` (OpenAI, a local
// llama.cpp / Ollama / vLLM server, a gateway).
//
// Failures become Errors with a ONE-line message the CLI can print as is, and
// a `kind` a caller can give advice for:
//   'http'        the server answered with a non-2xx status (`status` set)
//   'timeout'     the request's signal was aborted (the stage's timeoutMs)
//   'unreachable' no HTTP answer at all (refused connection, DNS, TLS …)
//   'bad-response' a 2xx answer without choices[0].message.content
// It lives in www/ because the playground serves only www/ and pkg/; the demo
// CLI (Node) imports it from here. It uses nothing but fetch.

/** The error every failed request rejects with. */
export class ProviderError extends Error {
  constructor(message, { kind, status, cause } = {}) {
    super(message, cause === undefined ? undefined : { cause });
    this.name = 'ProviderError';
    this.kind = kind;
    if (status !== undefined) this.status = status;
  }
}

const oneLine = (text) => String(text).replace(/\s+/g, ' ').trim();

/** The server's own error message from an OpenAI-style JSON error body, if any. */
function serverErrorMessage(bodyText) {
  try {
    const body = JSON.parse(bodyText);
    const message = body?.error?.message ?? body?.error ?? body?.message;
    return typeof message === 'string' && message.trim() !== '' ? oneLine(message).slice(0, 300) : undefined;
  } catch {
    return undefined;
  }
}

/**
 * @param {object} options
 * @param {string} options.baseUrl  e.g. `https://api.openai.com/v1`; `/chat/completions` is appended
 * @param {string} [options.apiKey] sent as `Authorization: Bearer …`; omitted when empty
 *        (local servers often need none)
 */
export function openAiCompatibleProvider({ baseUrl, apiKey }) {
  const trimmedBase = String(baseUrl).trim().replace(/\/+$/, '');
  const endpoint = `${trimmedBase}/chat/completions`;
  const headers = { 'content-type': 'application/json' };
  if (apiKey) headers.authorization = `Bearer ${apiKey}`;

  return {
    name: 'openai-compatible',

    async complete({ systemPrompt, messages, model, signal }) {
      const requestMessages = [
        ...(systemPrompt ? [{ role: 'system', content: systemPrompt }] : []),
        ...Array.from(messages, ({ role, content }) => ({ role, content })),
      ];
      let response;
      let bodyText;
      try {
        response = await fetch(endpoint, {
          method: 'POST',
          headers,
          // temperature 0: the same span should give the same summary.
          body: JSON.stringify({ model, messages: requestMessages, temperature: 0 }),
          signal,
        });
        bodyText = await response.text();
      } catch (error) {
        if (signal?.aborted) {
          throw new ProviderError(`no answer from ${trimmedBase} before the deadline (request aborted)`, {
            kind: 'timeout',
            cause: error,
          });
        }
        // fetch's own message is "fetch failed"; the useful part is the cause.
        const reason = error?.cause?.code ?? error?.cause?.message ?? error?.message ?? String(error);
        throw new ProviderError(`cannot reach ${trimmedBase}: ${oneLine(reason)}`, { kind: 'unreachable', cause: error });
      }

      if (!response.ok) {
        const detail = serverErrorMessage(bodyText);
        throw new ProviderError(`HTTP ${response.status} from ${trimmedBase}${detail ? `: ${detail}` : ''}`, {
          kind: 'http',
          status: response.status,
        });
      }

      let body;
      try {
        body = JSON.parse(bodyText);
      } catch {
        throw new ProviderError(`${trimmedBase} answered HTTP ${response.status} with a body that is not JSON`, {
          kind: 'bad-response',
        });
      }
      const content = body?.choices?.[0]?.message?.content;
      if (typeof content !== 'string') {
        throw new ProviderError(`${trimmedBase} answered without choices[0].message.content`, { kind: 'bad-response' });
      }
      const usage = body.usage;
      return Number.isFinite(usage?.prompt_tokens) && Number.isFinite(usage?.completion_tokens)
        ? { content, usage: { input: usage.prompt_tokens, output: usage.completion_tokens } }
        : { content };
    },
  };
}
