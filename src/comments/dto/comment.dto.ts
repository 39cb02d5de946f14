import { ApiProperty } from '@nestjs/swagger';
import { RequiredText } from '../../kernel/required-text.validator';

export const MAX_COMMENT_LENGTH = 5_000;

export class CommentDto {
  /** Your comment on the order; posting again replaces your earlier one. @example "Please deliver before noon." */
  @RequiredText(MAX_COMMENT_LENGTH)
  partner_comment!: string;
}

export class CommentSuccessResponse {
  /** @example true */
  success!: boolean;
}

/**
 * A 400 of the comment route: spec §4.5's own shape for a bad `partner_comment` (message "Validation failed",
 * each failing field mapped to one message), or the general shape for a malformed body ("Bad request.",
 * `errors.body` an array).
 */
export class CommentValidationErrorBody {
  /** @example "Validation failed" */
  message!: string;

  @ApiProperty({
    type: 'object',
    additionalProperties: { anyOf: [{ type: 'string' }, { type: 'array', items: { type: 'string' } }] },
    example: { partner_comment: 'The partner comment field is required.' },
  })
  errors!: Record<string, string | string[]>;
}

/** Spec §4.5's own 404 shape. */
export class CommentOrderNotFoundBody {
  /** @example false */
  success!: boolean;
  /** @example "Order not found." */
  message!: string;
}
