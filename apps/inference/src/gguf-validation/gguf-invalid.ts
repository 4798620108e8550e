import { AppError, ErrorCode } from '@weft/contracts';

/** A GGUF the validator refuses: the message names the file, the field and the problem. */
export function ggufInvalid(file: string, field: string, problem: string): AppError {
  return new AppError(ErrorCode.ModelFileInvalid, `${file} is not a GGUF Weft can load safely: ${field}: ${problem}`, { file, field, problem });
}

export function isGgufInvalid(error: unknown): error is AppError {
  return error instanceof AppError && error.code === ErrorCode.ModelFileInvalid;
}
