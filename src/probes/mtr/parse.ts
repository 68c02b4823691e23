/**
 * One line of `mtr --raw` output (mtr 0.95). Hop indexes are mtr's, from 0 (the first router is 0);
 * the stream numbers hops from 1.
 */
export type MtrLine = MtrSent | MtrHost | MtrReply | MtrName | MtrError;

/** `x 2 33002`: a probe went out to hop 2 with sequence number 33002. */
export interface MtrSent {
  type: 'sent';
  hop: number;
  seq: number;
}

/** `h 2 203.0.113.2`: hop 2 answered from this address (repeated; a new address means a path change). */
export interface MtrHost {
  type: 'host';
  hop: number;
  ip: string;
}

/** `p 2 84 33002`: the reply to probe 33002 of hop 2 took 84 microseconds. */
export interface MtrReply {
  type: 'reply';
  hop: number;
  /** Round trip in microseconds, as mtr prints it. */
  usec: number;
  /** Absent in mtr before 0.88, whose `p` lines end after the time. */
  seq?: number;
}

/** `d 2 router.example`: hop 2's reverse name (only without -n; the service passes -n). */
export interface MtrName {
  type: 'name';
  hop: number;
  name: string;
}

/** `mtr: Failed to resolve host: ...` and any other `mtr: ...` complaint (stderr). */
export interface MtrError {
  type: 'error';
  message: string;
}

const SENT = /^x (\d+) (\d+)$/;
const HOST = /^h (\d+) (\S+)$/;
const REPLY = /^p (\d+) (\d+)(?: (\d+))?$/;
const NAME = /^d (\d+) (\S+)$/;
const TOOL_ERROR = /^mtr: (.+)$/;

/** Parses one line (without its newline); lines mtr's raw format has but the stream does not need give null. */
export function parseMtrLine(line: string): MtrLine | null {
  let m = SENT.exec(line);
  if (m) return { type: 'sent', hop: Number(m[1]), seq: Number(m[2]) };
  m = REPLY.exec(line);
  if (m) {
    const reply: MtrReply = { type: 'reply', hop: Number(m[1]), usec: Number(m[2]) };
    if (m[3] !== undefined) reply.seq = Number(m[3]);
    return reply;
  }
  m = HOST.exec(line);
  if (m) return { type: 'host', hop: Number(m[1]), ip: m[2] ?? '' };
  m = NAME.exec(line);
  if (m) return { type: 'name', hop: Number(m[1]), name: m[2] ?? '' };
  m = TOOL_ERROR.exec(line);
  if (m) return { type: 'error', message: m[1] ?? '' };
  return null;
}
