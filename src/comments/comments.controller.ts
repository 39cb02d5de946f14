import { Body, Controller, HttpCode, Param, Post } from '@nestjs/common';
import {
  ApiBearerAuth,
  ApiBody,
  ApiExtraModels,
  ApiOkResponse,
  ApiOperation,
  ApiResponse,
  ApiTags,
} from '@nestjs/swagger';
import type { Actor } from '../kernel/access/actor';
import { CallerCompany, CurrentActor, Roles } from '../kernel/access/access.decorators';
import { idParam } from '../platform/http/id-param.pipe';
import { ApiErrorResponses } from '../platform/openapi/openapi.decorators';
import { Idempotent } from '../idempotency/idempotency.interceptor';
import { CommentOrderNotFoundError } from './comments.errors';
import { CommentsService } from './comments.service';
import {
  CommentDto,
  CommentOrderNotFoundBody,
  CommentSuccessResponse,
  CommentValidationErrorBody,
} from './dto/comment.dto';

@ApiTags('orders')
@ApiBearerAuth()
@Roles('partner')
@Controller('api/v2/order')
export class CommentsController {
  constructor(private readonly comments: CommentsService) {}

  /** Adds your comment to an order, or replaces the one you (this token's user) wrote before. */
  @Post(':id/comment')
  @ApiOperation({ operationId: 'commentOnOrder', summary: 'Comment on an order' })
  @HttpCode(200)
  @ApiBody({ type: CommentDto })
  @ApiExtraModels(CommentSuccessResponse, CommentValidationErrorBody, CommentOrderNotFoundBody)
  @ApiOkResponse({ type: CommentSuccessResponse, example: { success: true } })
  @ApiResponse({
    status: 400,
    description:
      'partner_comment missing, not a string, blank or over 5,000 characters (spec §4.5 body: one string per ' +
      'field); malformed JSON has the general shape (`errors.body`: an array).',
    type: CommentValidationErrorBody,
    example: {
      message: 'Validation failed',
      errors: { partner_comment: 'The partner comment field is required.' },
    },
  })
  @ApiResponse({
    status: 404,
    description: 'No such order of your company.',
    type: CommentOrderNotFoundBody,
    example: { success: false, message: 'Order not found.' },
  })
  @Idempotent()
  @ApiErrorResponses(401, 403, 409, 413, 422, 429)
  async comment(
    @CurrentActor() actor: Actor,
    @CallerCompany() companyId: number,
    @Param('id', idParam(() => new CommentOrderNotFoundError())) id: number,
    @Body() body: unknown,
  ): Promise<CommentSuccessResponse> {
    await this.comments.comment(actor, companyId, id, body);
    return { success: true };
  }
}
