import { Injectable } from '@nestjs/common';
import { ApiError } from '@app/common';
import { PASSWORD_MAX, PASSWORD_MIN } from './dto/auth.dto';
import { PasswordStrength } from './password-strength/password-strength';

/** zxcvbn's score a new password must reach (0–4; 3 = "safely unguessable: moderate protection"). */
export const PASSWORD_MIN_SCORE = 3;

/** Why a password is refused: the error code of the 400 and its message. */
export interface PasswordRefusal {
  code: 'password_too_short' | 'password_too_long' | 'password_common' | 'password_weak';
  message: string;
}

/**
 * The rule every password that is set must pass (sign-up by invitation, change, operator-created
 * users, the bootstrap operator): 12 to 200 characters, not on the list of common and breached
 * passwords shipped with @zxcvbn-ts/language-common (compared case-insensitively), and a zxcvbn
 * score of at least PASSWORD_MIN_SCORE — with the user's e-mail and name counted as known words.
 * A refusal says why (400 with the code and zxcvbn's warning and suggestions). zxcvbn runs in a
 * worker thread of its own (PasswordStrength), started when a password is checked.
 */
@Injectable()
export class PasswordPolicy {
  constructor(private readonly strength: PasswordStrength) {}

  /** Why `password` is refused, or null when it is acceptable. */
  async refusal(password: string, userInputs: string[] = []): Promise<PasswordRefusal | null> {
    if (password.length < PASSWORD_MIN)
      return { code: 'password_too_short', message: `The password must have at least ${PASSWORD_MIN} characters.` };
    if (password.length > PASSWORD_MAX)
      return { code: 'password_too_long', message: `The password must have at most ${PASSWORD_MAX} characters.` };
    const inputs = userInputs.flatMap((s) => [s, ...s.split(/[@.\s_+-]+/)]).filter((s) => s.length >= 3);
    const result = await this.strength.estimate(password, inputs);
    if (result.common)
      return {
        code: 'password_common',
        message: 'This password is on a list of common or breached passwords: choose another one.',
      };
    if (result.score >= PASSWORD_MIN_SCORE) return null;
    const why = [result.warning, ...result.suggestions].filter((s): s is string => Boolean(s));
    return {
      code: 'password_weak',
      message: `This password is too easy to guess.${why.length ? ' ' + why.join(' ') : ''} Use a longer passphrase of several unrelated words.`,
    };
  }

  /** Throws 400 (the refusal's code, `param` as the field) when `password` is refused. */
  async check(password: string, param: string, userInputs: string[] = []): Promise<void> {
    const r = await this.refusal(password, userInputs);
    if (r) throw ApiError.badRequest(r.message, param, r.code);
  }
}
