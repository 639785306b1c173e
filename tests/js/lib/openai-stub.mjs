// An OpenAI-compatible chat-completions server on 127.0.0.1 for tests that
// run the demo with `--llm openai --base-url URL`: calls are counted at the
// server, as a hosted model bills them.

import { createServer } from 'node:http';

/**
 * An OpenAI-compatible server on 127.0.0.1 that answers every request with
 * `respond(request, res)`. Records each request and whether the client
 * hung up before an answer was sent.
 */
export async function startStub(respond) {
  const requests = [];
  const server = createServer((req, res) => {
    let text = '';
    req.setEncoding('utf8').on('data', (chunk) => (text += chunk));
    req.on('end', () => {
      const record = { method: req.method, url: req.url, headers: req.headers, body: JSON.parse(text), hungUp: false };
      requests.push(record);
      res.on('close', () => {
        if (!res.writableEnded) record.hungUp = true;
      });
      respond(record, res);
    });
  });
  await new Promise((resolveListen) => server.listen(0, '127.0.0.1', resolveListen));
  return {
    baseUrl: `http://127.0.0.1:${server.address().port}/v1`,
    requests,
    close() {
      server.closeAllConnections();
      return new Promise((resolveClose) => server.close(resolveClose));
    },
  };
}

/** A chat-completions answer with `content`. */
export function answer(res, content, usage = { prompt_tokens: 100, completion_tokens: 10 }) {
  res.writeHead(200, { 'content-type': 'application/json' });
  res.end(JSON.stringify({ choices: [{ message: { role: 'assistant', content } }], usage }));
}

/** The first and last turn a summarizer request's transcript holds: the span it pays for, e.g. "1-9". */
export function spanOf(request) {
  const turns = [...request.body.messages.at(-1).content.matchAll(/ \(turn (\d+(?:\.\d+)?)\): /g)].map((m) => Number(m[1]));
  return `${Math.min(...turns)}-${Math.max(...turns)}`;
}
