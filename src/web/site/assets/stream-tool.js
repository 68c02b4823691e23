// How the stream pages (ping, traceroute, MTR) read their stream and end it: one place for the
// `done`, the `error` event, a refused call, and a stream that closes before either.
import { errorAlert, readEvents, say, showStreamRefusal, unknown, updateRawJson } from './tool.js';

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
