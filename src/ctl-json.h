/*
 * ctl-json.h -- a small JSON writer for tickctl --json: one object per
 * line, built in memory, strings escaped per RFC 8259.
 */
#ifndef TICKD_CTL_JSON_H
#define TICKD_CTL_JSON_H

#include <stddef.h>
#include <stdint.h>

/*
 * A JSON text being built.  Plain data: initialise with ctl_json_init,
 * release with ctl_json_free.  A value is written with a key inside an
 * object and with key NULL inside an array (or at the top level).
 */
struct ctl_json {
	char	*buf;		/* NUL-terminated text so far */
	size_t	 len;
	size_t	 cap;
	int	 comma;		/* the next member needs a ',' first */
};

void		 ctl_json_init(struct ctl_json *);
void		 ctl_json_free(struct ctl_json *);
void		 ctl_json_reset(struct ctl_json *);
const char	*ctl_json_text(const struct ctl_json *);
void		 ctl_json_open(struct ctl_json *, const char *);
void		 ctl_json_close(struct ctl_json *);
void		 ctl_json_open_array(struct ctl_json *, const char *);
void		 ctl_json_close_array(struct ctl_json *);
void		 ctl_json_str(struct ctl_json *, const char *, const char *);
void		 ctl_json_strn(struct ctl_json *, const char *, const char *,
		     size_t);
void		 ctl_json_int(struct ctl_json *, const char *, int64_t);
void		 ctl_json_opt(struct ctl_json *, const char *, int64_t);
void		 ctl_json_bool(struct ctl_json *, const char *, int);
void		 ctl_json_null(struct ctl_json *, const char *);
void		 ctl_json_time(struct ctl_json *, const char *, int64_t);
void		 ctl_json_time_ms(struct ctl_json *, const char *, int64_t);
void		 ctl_json_escape(struct ctl_json *, const char *, size_t);
int		 ctl_json_print(struct ctl_json *);
size_t		 ctl_json_utf8(const unsigned char *, size_t, size_t *);

#endif /* TICKD_CTL_JSON_H */
