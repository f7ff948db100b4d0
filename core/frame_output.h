/* The run's outputs (frame_output.c): open frame files, previews and the
 * checkpoint path (resuming when asked); write a finished frame's files
 * and previews; write a periodic checkpoint; stop on an interrupt. */
#ifndef MS_CORE_FRAME_OUTPUT_H
#define MS_CORE_FRAME_OUTPUT_H

struct ms_sim;

int ms__outputs_open(struct ms_sim *S);
int ms__outputs_frame(struct ms_sim *S);
int ms__outputs_checkpoint(struct ms_sim *S);
/* Wait until every frame file is in place; any failure to write one. */
int ms__outputs_flush(struct ms_sim *S);
int ms__interrupted(const struct ms_sim *S);
int ms__interrupt(struct ms_sim *S);
void ms__progress(struct ms_sim *S, int frame_done);
void ms__outputs_close(struct ms_sim *S);

#endif
