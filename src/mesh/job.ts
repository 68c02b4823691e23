import { createHmac, timingSafeEqual } from 'node:crypto';
import type { Tier } from '../limits/tiers.ts';
import type { MeasurementType } from './measurement-types.ts';

/** What one node is asked to run: one probe of one measurement. */
export interface Job {
  measurement: string;
  probe: number;
  node: string;
  type: MeasurementType;
  target: string;
  options: Record<string, string>;
  /** The caller, as the node that took the request saw it: the running node's per-caller caps count it. */
  client_ip: string;
  /** Who the probe is for: its node's per-caller caps count this caller rather than the address. */
  caller?: { tier: Tier; subject: string };
  /** The node that accepted the request. */
  origin: string;
}

export interface SignedJob {
  /** The job as JSON, exactly as signed. */
  readonly json: string;
  readonly signature: string;
}

export function signJob(job: Job, secret: string): SignedJob {
  const json = JSON.stringify(job);
  return { json, signature: createHmac('sha256', secret).update(json).digest('hex') };
}

/** The job, or null when the signature is not the mesh's (a forged or altered job is not run). */
export function verifyJob(signed: SignedJob, secret: string): Job | null {
  const expected = createHmac('sha256', secret).update(signed.json).digest();
  const given = Buffer.from(signed.signature, 'hex');
  if (given.length !== expected.length || !timingSafeEqual(given, expected)) return null;
  try {
    return JSON.parse(signed.json) as Job;
  } catch {
    return null;
  }
}
