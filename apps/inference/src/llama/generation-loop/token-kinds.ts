import type { LlamaModel } from '../llama-runtime';

/**
 * Whether a token ends a generation or is special, asked of the model once per token id. Both
 * are fixed by the vocabulary, and node-llama-cpp answers `isSpecialToken` with up to four calls
 * into the addon (the token's attributes, `isEogToken`, one or two detokenizations) and
 * `isEogToken` with one, which Weft's loop asked for every generated token.
 */
export class TokenKinds {
  private static readonly byModel = new WeakMap<LlamaModel, TokenKinds>();
  private readonly eog = new Map<number, boolean>();
  private readonly special = new Map<number, boolean>();

  private constructor(private readonly model: LlamaModel) {}

  static of(model: LlamaModel): TokenKinds {
    let kinds = TokenKinds.byModel.get(model);
    if (!kinds) TokenKinds.byModel.set(model, (kinds = new TokenKinds(model)));
    return kinds;
  }

  isEog(token: number): boolean {
    let eog = this.eog.get(token);
    if (eog === undefined) this.eog.set(token, (eog = this.model.isEogToken(token as Parameters<LlamaModel['isEogToken']>[0])));
    return eog;
  }

  isSpecial(token: number): boolean {
    let special = this.special.get(token);
    if (special === undefined) this.special.set(token, (special = this.model.isSpecialToken(token as Parameters<LlamaModel['isSpecialToken']>[0])));
    return special;
  }
}
