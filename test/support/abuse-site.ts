import { startFakeRegistries } from '../abuse/fake-registries.ts';
import { startSite } from './site-browser.ts';

/** The site and a browser (startSite), its RDAP requests answered by the registry fakes of test/abuse. */
export async function startAbuseSite() {
  const fakes = await startFakeRegistries();
  const site = await startSite({ ...fakes.env, HOSTNAME_TIMEOUT_MS: '0' }, fakes.deps);
  return {
    ...site,
    fakes,
    async close() {
      await site.close();
      await fakes.close();
    },
  };
}
