import { RequiredText } from '../../common/required-text.validator';

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
