import { type AccountRepository, type AccountSummary, PLANS, type Plan } from '../storage/repository.ts';
import { normaliseEmail } from './email.ts';
import type { Keyring } from './keyring.ts';
import { type RotationReport, rotateApiKeys, rotateWebhookSecrets, type WebhookSecretStore } from './rotation.ts';

export const ADMIN_USAGE = `usage: npm run admin -- <command>
  list                     every account: email, plan, status, active keys, created, last key use
  plan <email> free|pro    set an account's plan (its keys get the plan's limits on their next request)
  disable <email>          refuse its keys and logins, and end its sessions (reversible)
  enable <email>           undo disable
  rotate-keys              re-encrypt every API key and monitor webhook secret under the current (first)
                           MASTER_KEY version`;

const day = (ms: number | null) => (ms === null ? '-' : new Date(ms).toISOString().slice(0, 16).replace('T', ' '));

export function formatAccountTable(accounts: readonly AccountSummary[]): string[] {
  const rows = [
    ['email', 'plan', 'status', 'keys', 'created (UTC)', 'last key use (UTC)'],
    ...accounts.map((account) => [
      account.email,
      account.plan,
      account.disabledAt === null ? 'active' : 'disabled',
      String(account.activeKeys),
      day(account.createdAt),
      day(account.lastUsedAt),
    ]),
  ];
  const widths = rows[0]?.map((_, column) => Math.max(...rows.map((row) => (row[column] ?? '').length))) ?? [];
  return rows.map((row) =>
    row
      .map((cell, column) => cell.padEnd(widths[column] ?? 0))
      .join('  ')
      .trimEnd(),
  );
}

/**
 * The operator's commands, over the repository (so they work on whatever database the service
 * uses). A running service notices the change on its next keyed request (see
 * AccountRepository.changedElsewhere). Returns the process exit code.
 */
export async function runAdminCommand(
  args: readonly string[],
  deps: {
    repository: AccountRepository;
    now: () => number;
    print: (line: string) => void;
    keyring?: Keyring;
    /** The monitors' webhook secrets, for rotate-keys: they are under the master key too. */
    webhookSecrets?: WebhookSecretStore;
  },
): Promise<number> {
  const { repository, now, print } = deps;
  const [command, emailArgument, planArgument] = args;
  const fail = (message: string) => {
    print(message);
    return 1;
  };

  if (command === 'list' && args.length === 1) {
    const accounts = await repository.listAccounts();
    for (const line of formatAccountTable(accounts)) print(line);
    print(`${accounts.length} account${accounts.length === 1 ? '' : 's'}`);
    return 0;
  }

  if (command === 'rotate-keys' && args.length === 1) {
    const { keyring, webhookSecrets } = deps;
    if (!keyring) return fail('rotate-keys needs the master keys (MASTER_KEY or DATA_DIR/master.key)');
    if (!webhookSecrets) return fail("rotate-keys needs the monitors' webhook secrets as well as the API keys");
    const version = keyring.current.version;
    const said = (report: RotationReport, one: string, many: string, what: string) => {
      print(`re-encrypted ${report.rotated} ${report.rotated === 1 ? one : many} under master key version ${version}`);
      for (const failure of report.failed) print(`not rotated: ${what} ${failure.id}: ${failure.reason}`);
      return report.failed.length;
    };
    const failedKeys = said(await rotateApiKeys(repository, keyring), 'key', 'keys', 'key');
    const failedSecrets = said(
      await rotateWebhookSecrets(webhookSecrets, keyring),
      'webhook secret',
      'webhook secrets',
      'the webhook secret of monitor',
    );
    return failedKeys + failedSecrets === 0 ? 0 : 1;
  }

  const known = ['plan', 'disable', 'enable'];
  const expectedArgs = command === 'plan' ? 3 : 2;
  if (!command || !known.includes(command) || args.length !== expectedArgs || !emailArgument) {
    return fail(ADMIN_USAGE);
  }
  const email = normaliseEmail(emailArgument);
  const account = email.ok ? await repository.findAccountByEmail(email.email) : undefined;
  if (!account) return fail(`no account with the email ${emailArgument}`);

  if (command === 'plan') {
    if (!(PLANS as readonly string[]).includes(planArgument ?? ''))
      return fail(`the plan must be one of ${PLANS.join(', ')}`);
    await repository.setPlan(account.id, planArgument as Plan);
    print(`${account.email}: plan ${account.plan} -> ${planArgument}`);
    return 0;
  }
  if (command === 'disable') {
    await repository.setDisabled(account.id, now());
    await repository.deleteSessionsOfAccount(account.id);
    print(`${account.email}: disabled (keys refused, sessions ended)`);
    return 0;
  }
  await repository.setDisabled(account.id, null);
  print(`${account.email}: enabled`);
  return 0;
}
