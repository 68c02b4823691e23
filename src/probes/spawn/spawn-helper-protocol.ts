/** Messages between the server and its spawn helper (Node IPC, `advanced` serialisation: Buffers pass as bytes). */

export type HelperRequest =
  | { type: 'spawn'; id: number; command: string; args: string[] }
  | { type: 'kill'; id: number; signal: NodeJS.Signals };

export type HelperReply =
  | { type: 'spawn'; id: number; pid: number }
  /** The tool could not be started (ENOENT when it is not installed). */
  | { type: 'error'; id: number; code: string | undefined; message: string }
  | { type: 'data'; id: number; fd: 1 | 2; data: Uint8Array }
  /** The tool exited, was reaped, and all its output was sent before this. */
  | { type: 'close'; id: number; code: number | null; signal: NodeJS.Signals | null };
