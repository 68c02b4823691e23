import { execFile } from 'node:child_process';
import { chmod, mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';

const run = promisify(execFile);

/**
 * A network namespace standing for a visitor's machine: one veth to the root namespace (host end
 * 10.231.<n>.1/30, visitor end .2/30, nothing routed further), and /etc/netns/<ns>/resolv.conf
 * naming the host end as its only name server. `chromium` is a wrapper that runs Chromium inside
 * it (ip netns exec binds that resolv.conf over /etc/resolv.conf), for playwright's executablePath.
 */
export type VisitorNamespace = {
  readonly name: string;
  readonly hostAddress: string;
  readonly visitorAddress: string;
  readonly chromium: string;
  remove(): Promise<void>;
};

/** Why the namespace cannot be made here, or false. */
export function netnsSkipReason(): string | false {
  if (process.getuid?.() !== 0) return 'not root: cannot create a network namespace';
  return false;
}

export async function createVisitorNamespace(chromiumPath: string): Promise<VisitorNamespace> {
  const id = process.pid % 250;
  const name = `nr-${process.pid}`;
  const hostEnd = `nrh${process.pid}`.slice(0, 15);
  const visitorEnd = `nrv${process.pid}`.slice(0, 15);
  const hostAddress = `10.231.${id}.1`;
  const visitorAddress = `10.231.${id}.2`;
  const dir = await mkdtemp(path.join(tmpdir(), 'netinfo-netns-'));
  const remove = async () => {
    await run('ip', ['link', 'del', hostEnd]).catch(() => {});
    await run('ip', ['netns', 'del', name]).catch(() => {});
    await rm(`/etc/netns/${name}`, { recursive: true, force: true });
    await rm(dir, { recursive: true, force: true });
  };
  try {
    await run('ip', ['netns', 'add', name]);
    await run('ip', ['link', 'add', hostEnd, 'type', 'veth', 'peer', 'name', visitorEnd, 'netns', name]);
    await run('ip', ['addr', 'add', `${hostAddress}/30`, 'dev', hostEnd]);
    await run('ip', ['link', 'set', hostEnd, 'up']);
    const inside = (...args: string[]) => run('ip', ['netns', 'exec', name, 'ip', ...args]);
    await inside('addr', 'add', `${visitorAddress}/30`, 'dev', visitorEnd);
    await inside('link', 'set', visitorEnd, 'up');
    await inside('link', 'set', 'lo', 'up');
    await mkdir(`/etc/netns/${name}`, { recursive: true });
    await writeFile(`/etc/netns/${name}/resolv.conf`, `nameserver ${hostAddress}\noptions timeout:2 attempts:1\n`);
    const chromium = path.join(dir, 'chromium-in-netns');
    await writeFile(chromium, `#!/bin/sh\nexec ip netns exec ${name} ${chromiumPath} "$@"\n`);
    await chmod(chromium, 0o755);
    return { name, hostAddress, visitorAddress, chromium, remove };
  } catch (error) {
    await remove();
    throw error;
  }
}
