import { Argument, type Command, Option } from 'commander';
import { type AdminKey, type AdminUser, type UpdatedUser, type UserRole, USER_ROLES } from '../admin-client';
import { outColors, status, type CliContext } from '../context';
import { tableText } from '../table';
import type { AdminConnect } from './admin-connect';

/** `2026-11-03 14:05` (UTC), or `never` / `-` for a missing time. */
export function shortTime(iso: string | null, missing = '-'): string {
  return iso ? iso.slice(0, 16).replace('T', ' ') : missing;
}

/** `users`, `user`, `create-user`, `role`, `disable`, `enable`, `delete-user`. */
export function addUserCommands(admin: Command, ctx: CliContext, connect: AdminConnect): void {
  admin
    .command('users')
    .description('every user, with their groups at the identity provider (role "by groups" when those set it), their number of keys and when a key of theirs was last used (UTC)')
    .action(async () => {
      const users = await (await connect()).listUsers();
      const c = outColors(ctx);
      if (users.length === 0) {
        ctx.stdout.write(c.dim('no users\n'));
        return;
      }
      const rows = users.map((user) => [
        user.name,
        user.id,
        roleText(user),
        user.sso ? user.sso.groups.join(',') || 'none' : '-',
        user.disabled ? 'yes' : 'no',
        String(user.keys.length),
        shortTime(lastKeyUse(user.keys), 'never'),
      ]);
      const columns = [{ header: 'name' }, { header: 'id' }, { header: 'role' }, { header: 'groups' }, { header: 'disabled' }, { header: 'keys', align: 'right' as const }, { header: 'last key use' }];
      ctx.stdout.write(tableText(columns, rows, c));
    });
  admin
    .command('user')
    .description("one user and their keys (never the keys themselves: a key's prefix)")
    .argument('<userId>', 'usr_…')
    .action(async (userId: string) => writeUser(ctx, await (await connect()).getUser(userId)));
  admin
    .command('create-user')
    .description('create a user; prints their id (names are unique)')
    .argument('<name>', 'a name, unique on this gateway')
    .addOption(new Option('--role <role>', "admin: their keys manage the gateway as the bootstrap token does").choices(USER_ROLES).default('member'))
    .action(async (name: string, options: { role: UserRole }) => {
      const user = await (await connect()).createUser(name, options.role);
      ctx.stdout.write(`${user.id}\n`);
      status(ctx, `created ${user.role} ${user.name}: give them a key with \`weft admin create-key ${user.id}\``);
    });
  admin
    .command('role')
    .description("make a user an admin (their keys manage the gateway, as `weft admin`) or a member")
    .argument('<userId>', 'usr_…')
    .addArgument(new Argument('<role>', 'admin or member').choices(USER_ROLES))
    .action(async (userId: string, role: UserRole) => {
      const user = await (await connect()).setRole(userId, role);
      const c = outColors(ctx);
      const meaning = user.role === 'admin' ? 'their keys manage this gateway' : 'their keys no longer reach the admin routes';
      ctx.stdout.write(`${c.green('✓')} ${c.bold(user.name)} (${user.id}) is now ${user.role === 'admin' ? 'an admin' : 'a member'}: ${meaning}\n`);
    });
  admin
    .command('disable')
    .description("refuse the user's keys from now on and cancel their running turns; nothing is deleted")
    .argument('<userId>', 'usr_…')
    .action(async (userId: string) => writeUpdated(ctx, await (await connect()).setDisabled(userId, true)));
  admin
    .command('enable')
    .description("let a disabled user's keys in again")
    .argument('<userId>', 'usr_…')
    .action(async (userId: string) => writeUpdated(ctx, await (await connect()).setDisabled(userId, false)));
  admin
    .command('delete-user')
    .description('delete a user and everything they own: sessions, workspaces, notes, rules, keys (usage figures stay)')
    .argument('<userId>', 'usr_…')
    .requiredOption('--confirm <name>', "the user's name, typed again")
    .action(async (userId: string, options: { confirm: string }) => {
      const deleted = await (await connect()).deleteUser(userId, options.confirm);
      const c = outColors(ctx);
      ctx.stdout.write(`${c.green('✓')} deleted ${c.bold(deleted.name)} (${deleted.id}): ${deleted.sessions} sessions, ${deleted.workspaces} workspaces, ${deleted.keys} keys\n`);
    });
}

function lastKeyUse(keys: readonly AdminKey[]): string | null {
  return keys.reduce<string | null>((last, key) => (key.lastUsedAt && (!last || key.lastUsedAt > last) ? key.lastUsedAt : last), null);
}

function writeUser(ctx: CliContext, user: AdminUser): void {
  const c = outColors(ctx);
  ctx.stdout.write(`${c.bold(user.name)}  ${user.id}  ${user.role}${user.disabled ? `  ${c.red('disabled')}` : ''}\n`);
  ctx.stdout.write(c.dim(`created ${shortTime(user.createdAt)} (UTC)\n`));
  for (const line of ssoLines(user)) ctx.stdout.write(`${line}\n`);
  if (user.keys.length === 0) {
    ctx.stdout.write(c.dim('no keys\n'));
    return;
  }
  const rows = user.keys.map((key) => [key.id, key.name ?? '-', key.prefix, shortTime(key.createdAt), shortTime(key.expiresAt, 'never'), shortTime(key.lastUsedAt, 'never')]);
  ctx.stdout.write(tableText(['key', 'name', 'prefix', 'created', 'expires', 'last used'].map((header) => ({ header })), rows, c));
}

function writeUpdated(ctx: CliContext, user: UpdatedUser): void {
  const c = outColors(ctx);
  const turns = `${user.cancelledTurns} running turn${user.cancelledTurns === 1 ? '' : 's'} cancelled`;
  const outcome = user.disabled ? `disabled ${c.bold(user.name)} (${user.id}): their keys are refused; ${turns}` : `enabled ${c.bold(user.name)} (${user.id}): their keys work again`;
  ctx.stdout.write(`${c.green('✓')} ${outcome}\n`);
}

/** `admin (by groups)` when WEFT_OIDC_ADMIN_GROUPS set the role at the last sign-in. */
function roleText(user: AdminUser): string {
  return user.sso?.roleFrom === 'provider' ? `${user.role} (by groups)` : user.role;
}

/** What the identity provider gave the user at their last sign-in; nothing for a user who never signed in through it. */
export function ssoLines(user: AdminUser): string[] {
  const sso = user.sso;
  if (!sso) return ['sso: never signed in through the identity provider'];
  const quota = Object.entries(sso.quotaClass).map(([field, value]) => `${field}=${value === 0 ? 'unlimited' : value}`);
  const allow = sso.models?.allow ? sso.models.allow.join(',') || 'none' : 'every model';
  const models = sso.models?.deny.length ? `${allow} except ${sso.models.deny.join(',')}` : allow;
  return [
    `sso: ${sso.email ?? 'no email'}, last sign-in ${shortTime(sso.signedInAt)} (UTC)`,
    `groups: ${sso.groups.join(', ') || 'none'}`,
    `role from: ${sso.roleFrom === 'provider' ? 'their groups (WEFT_OIDC_ADMIN_GROUPS)' : 'set in Weft'}`,
    `quota class: ${quota.join(', ') || 'none (server defaults)'}`,
    `models: ${models}`,
  ];
}
