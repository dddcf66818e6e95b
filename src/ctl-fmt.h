/*
 * ctl-fmt.h -- tickctl's output for people: aligned tables, times in a
 * zone and in UTC, short durations, safe text; and the parsing of the
 * arguments several commands share (--since, --limit).
 */
#ifndef TICKD_CTL_FMT_H
#define TICKD_CTL_FMT_H

#include <stddef.h>
#include <stdint.h>

#include "store_query.h"
#include "tz.h"

#define CTL_FMT_BUFSZ	64	/* enough for any one formatted value */

/* Rows of cells printed as aligned columns.  Caller frees. */
struct ctl_table {
	size_t	  ncols;
	char	**cells;	/* nrows * ncols, row-major, owned */
	size_t	  nrows;
};

/* A batch's progress as --wait shows it (ctl_progress_step). */
struct ctl_progress {
	int				 tty;	/* rewrite one line */
	int				 shown;	/* a line was written */
	int64_t				 last_ms; /* when */
	struct store_query_shards	 last;	/* the counts it showed */
	size_t				 width;	/* of the line on the tty */
};

void	 ctl_table_init(struct ctl_table *, size_t);
void	 ctl_table_row(struct ctl_table *, ...);
void	 ctl_table_rowv(struct ctl_table *, const char *const *);
int	 ctl_table_print(const struct ctl_table *, const char *);
void	 ctl_table_free(struct ctl_table *);
size_t	 ctl_fmt_width(const char *);

void	 ctl_fmt_ms(int64_t, char *, size_t);
void	 ctl_fmt_cpu(int64_t, char *, size_t);
void	 ctl_fmt_bytes(int64_t, char *, size_t);
void	 ctl_fmt_lateness(int64_t, char *, size_t);
void	 ctl_fmt_local(int64_t, const struct tz *, char *, size_t);
void	 ctl_fmt_utc(int64_t, char *, size_t);
void	 ctl_fmt_ago(int64_t, int64_t, char *, size_t);
void	 ctl_fmt_exit(int, int, char *, size_t);
char	*ctl_fmt_vis(const char *, size_t, int);
char	*ctl_fmt_clip(const char *, size_t, size_t);
void	 ctl_fmt_elapsed(int64_t, char *, size_t);
void	 ctl_fmt_status(const struct store_query_run *, char *, size_t);
void	 ctl_fmt_progress(const struct store_query_shards *, int64_t,
	     char *, size_t);

int	 ctl_progress_step(struct ctl_progress *,
	     const struct store_query_shards *, int64_t, int64_t, char *,
	     size_t);
int	 ctl_progress_end(struct ctl_progress *, char *, size_t);

int	 ctl_parse_since(const char *, int64_t, int64_t *, char **);
int	 ctl_parse_count(const char *, long, long, long *);

#endif /* TICKD_CTL_FMT_H */
