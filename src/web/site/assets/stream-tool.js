// How the stream pages (ping, traceroute, MTR) read their stream and end it: one place for the
// `done`, the `error` event, a refused call, and a stream that closes before either.
import { apiCallCard, apiErrorText, errorAlert, say, unknown, updateRawJson } from './tool.js';

/**
 * Reads a Server-Sent Events stream of the API with fetch, calling onEvent with each `data:` JSON
 * object as it arrives. fetch, not EventSource: EventSource cannot read the status and body of a
 * 400 or 429 answer (it reports a bare "error" and retries), and the page must say what went wrong.
 * Resolves `{ status, body }` for an answer that is not a stream, `{ status: 200 }` when the stream ends.
 */
async function readEvents(path, signal, onEvent) {
  const response = await fetch(path, { signal, headers: { accept: 'text/event-stream' } });
  if (!response.ok || !response.body) {
    return { status: response.status, body: await response.json().catch(() => null) };
  }
  const reader = response.body.pipeThrough(new TextDecoderStream()).getReader();
  let buffer = '';
  for (;;) {
    const { value, done } = await reader.read();
    if (done) break;
    buffer += value.replaceAll('\r\n', '\n');
    for (let end = buffer.indexOf('\n\n'); end !== -1; end = buffer.indexOf('\n\n')) {
      const message = buffer.slice(0, end);
      buffer = buffer.slice(end + 2);
      const data = message
        .split('\n')
        .filter((line) => line.startsWith('data:'))
        .map((line) => line.slice(5).replace(/^ /, ''))
        .join('\n');
      if (data) onEvent(JSON.parse(data));
    }
  }
  return { status: response.status };
}

/** A stream the API refused before it started (a 400, a 429...): its error, and the call that got it. */
function showStreamRefusal(result, status, apiPath, answer) {
  result.replaceChildren(
    errorAlert(apiErrorText(answer.status, answer.body)),
    apiCallCard(apiPath, answer.body, { stream: true }),
  );
  say(status, '');
}

/**
 * Reads the probe's stream into its page (`run` is what startTool gives the page). Every event goes
 * into the API card's raw JSON; `done` to `onDone`, any other but `error` to `onEvent`. An error says
 * why in `outcome` and removes `emptyParts` when nothing was measured. Resolves false when the page
 * has moved on (aborted) or the API refused the call (said on the page), true otherwise.
 */
export async function followStream(run, { what, api, events, outcome, measured, emptyParts, onEvent, onDone }) {
  const { apiPath, signal, result, status } = run;
  const title = `${what[0].toUpperCase()}${what.slice(1)}`;
  let finished = false;
  const answer = await readEvents(apiPath, signal, (event) => {
    events.push(event);
    updateRawJson(api, events);
    if (event.type === 'done') {
      finished = true;
      onDone(event);
    } else if (event.type === 'error') {
      finished = true;
      outcome.replaceChildren(errorAlert(`${title} stopped: ${event.message}`));
      say(status, '');
      if (!measured()) for (const part of emptyParts) part.remove();
    } else onEvent(event);
  });
  if (signal.aborted) return false;
  if (answer.status !== 200) {
    showStreamRefusal(result, status, apiPath, answer);
    return false;
  }
  if (!finished) {
    outcome.replaceChildren(errorAlert(`The stream ended before ${what} finished.`));
    say(status, '');
  }
  return true;
}

/** What a hop row names: its host name, or why there is none. */
export function hopName(hop) {
  if (hop.ip === null) return unknown('no answer');
  return hop.hostname && hop.hostname !== hop.ip ? hop.hostname : unknown('no name');
}
