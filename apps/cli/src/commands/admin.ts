import { Command } from 'commander';
import { connectAdmin, type AdminTarget, type CliContext } from '../context';
import { addAuditCommand } from './admin-audit';
import { addBackupCommands } from './admin-backup';
import { addBootstrapCommands } from './admin-bootstrap';
import type { AdminConnect } from './admin-connect';
import { addFleetCommand } from './admin-fleet';
import { addKeyCommands } from './admin-keys';
import { addLimitsCommand } from './admin-limits';
import { addModelsCommands } from './admin-models';
import { addAdminUsageCommand } from './admin-usage';
import { addUserCommands } from './admin-users';

export function adminCommand(ctx: CliContext): Command {
  const admin = new Command('admin')
    .description("manage users, roles, keys, limits and usage, read the audit trail, see the inference fleet, as an admin user or with the gateway's bootstrap token")
    .option(
      '--admin-token <token>',
      "the bootstrap token or an admin user's key (default: $WEFT_ADMIN_TOKEN, which keeps it out of `ps`, then $WEFT_KEY or the key saved by `weft login`)",
    )
    .option('--url <gateway>', 'the gateway (default: $WEFT_URL, then the URL saved by `weft login`)')
    // Subcommands are made with `admin.command()`, so they inherit this and list the two options above.
    .configureHelp({ showGlobalOptions: true })
    .addHelpText(
      'after',
      '\nExamples:\n  WEFT_ADMIN_TOKEN=… weft admin create-user ada --role admin && weft admin create-key usr_… --name laptop --expires-in-days 90\n' +
        '  weft admin users        # as an admin user logged in with `weft login`',
    );
  const connect: AdminConnect = () => connectAdmin(ctx, admin.opts<AdminTarget>());
  addUserCommands(admin, ctx, connect);
  addKeyCommands(admin, ctx, connect);
  addLimitsCommand(admin, ctx, connect);
  addAdminUsageCommand(admin, ctx, connect);
  addAuditCommand(admin, ctx, connect);
  addBootstrapCommands(admin, ctx, connect);
  addFleetCommand(admin, ctx, connect);
  addBackupCommands(admin, ctx, connect);
  addModelsCommands(admin, ctx, connect);
  return admin;
}
