import { Injectable, Logger, OnApplicationBootstrap } from '@nestjs/common';
import { ApiError } from '@app/common';
import { AppConfig } from '@app/config';
import { BootstrapService } from '@app/admin';
import { AccountsRepository } from './accounts.repository';
import { AccountsService, generatePassword } from './accounts.service';
import { SYSTEM_ACTOR } from './audit';

/**
 * What to do when nobody can sign in: logged by a server that has no user, shown on the console's
 * sign-in page and quoted by the README (word for word).
 */
export const NO_USER_HINT =
  'No one can sign in yet: restart the server with BOOTSTRAP_OPERATOR_EMAIL and BOOTSTRAP_OPERATOR_PASSWORD (12 characters or more) to create the first operator, or run `npm run admin -- user create you@example.com --operator` on the server, which prints a password.';

/** The e-mail of the operator created on the embedded default's first run. */
export const FIRST_RUN_OPERATOR_EMAIL = 'operator@gateway.local';

/**
 * The first operator:
 * - BOOTSTRAP_OPERATOR_EMAIL / BOOTSTRAP_OPERATOR_PASSWORD: created on start when no user has that
 *   e-mail (an existing user is left as it is), owner of the bootstrap workspace when there is one;
 * - the embedded default's first run: an operator with a generated password, owner of the
 *   development workspace, printed in the first-run banner beside the key.
 */
@Injectable()
export class AccountsBootstrapService implements OnApplicationBootstrap {
  private readonly logger = new Logger('Bootstrap');

  constructor(
    private readonly config: AppConfig,
    private readonly accounts: AccountsService,
    private readonly repo: AccountsRepository,
    private readonly workspace: BootstrapService,
  ) {}

  async onApplicationBootstrap(): Promise<void> {
    const { bootstrapOperatorEmail: email, bootstrapOperatorPassword: password } = this.config.accounts;
    if (!email || !password) return;
    const teamId = await this.workspace.bootstrapWorkspace();
    if (await this.repo.findUserByEmail(email)) return;
    try {
      await this.accounts.createUser(
        { email, password, operator: true, name: 'Operator' },
        SYSTEM_ACTOR,
        teamId ? { teamId, role: 'owner' } : null,
      );
      this.logger.log(`bootstrap operator ${email} created${teamId ? ' (owner of the workspace "default")' : ''}`);
    } catch (err) {
      // another replica created it at the same moment
      if (err instanceof ApiError && err.code === 'email_taken') return;
      if (err instanceof ApiError && err.status === 400)
        throw new Error(`BOOTSTRAP_OPERATOR_PASSWORD is refused (${err.code}): ${err.message}`);
      throw err;
    }
  }

  /**
   * The embedded default's first run: the development workspace, its key and an operator who owns it.
   * Afterwards, a server with no user at all logs how to create one (NO_USER_HINT).
   */
  async firstRun(): Promise<boolean> {
    const created = await this.workspace.firstRun(async (teamId) => {
      const password = generatePassword();
      await this.accounts.createUser(
        { email: FIRST_RUN_OPERATOR_EMAIL, password, operator: true, name: 'Operator' },
        SYSTEM_ACTOR,
        { teamId, role: 'owner' },
      );
      return [
        ` Console sign-in (operator, owner of this workspace; also shown once):`,
        `   E-mail:   ${FIRST_RUN_OPERATOR_EMAIL}`,
        `   Password: ${password}`,
      ];
    });
    if ((await this.repo.countUsers()) === 0) this.logger.warn(NO_USER_HINT);
    return created;
  }
}
