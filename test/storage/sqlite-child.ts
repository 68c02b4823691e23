// Helper process for sqlite.test.ts (not a test itself): acts on a database from another process.
//   write-then-wait <file> <email>        create an account, print "written", then wait to be killed
//   create-keys <file> <accountId> <n> <quota>   try n key creations, print how many succeeded
import { openSqliteRepository } from '../../src/storage/sqlite.ts';

const [command, file = '', arg1 = '', arg2 = '', arg3 = ''] = process.argv.slice(2);
const repository = openSqliteRepository(file);

if (command === 'write-then-wait') {
  await repository.createAccount({
    id: 'durable-account-1',
    email: arg1,
    passwordHash: 'x',
    plan: 'free',
    createdAt: Date.now(),
    disabledAt: null,
  });
  process.stdout.write('written\n');
  setInterval(() => {}, 1000);
} else if (command === 'create-keys') {
  let created = 0;
  for (let index = 0; index < Number(arg2); index++) {
    const id = `${process.pid}-${index}`.padEnd(16, 'k');
    const outcome = await repository.createKeyWithinQuota(
      {
        id,
        accountId: arg1,
        name: id,
        displayPrefix: 'nk_000000',
        lookupHash: id,
        secret: { keyVersion: 1, nonce: 'n', ciphertext: 'c', tag: 't' },
        createdAt: Date.now(),
        lastUsedAt: null,
        revokedAt: null,
      },
      Number(arg3),
    );
    if (outcome === 'created') created++;
  }
  process.stdout.write(`${created}\n`);
  await repository.close();
}
