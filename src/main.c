/*
 * main.c: swag's command line.  The only part of swag that prints messages or exits:
 * it parses the options and the aggregate specs, runs the pipeline and turns what
 * comes back into a message and an exit status (0 success, 1 bad input data, 2 usage
 * error, 3 input/output or resource error).  main() does these in turn:
 * parse_options, check_specs, run and report_status.
 */
#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/random.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "agg.h"
#include "blank.h"
#include "mem.h"
#include "numprint.h"
#include "output.h"
#include "pipeline.h"
#include "spec.h"
#include "timestamp.h"
#include "work.h"

#ifndef SWAG_VERSION
#define SWAG_VERSION "0.1.0"
#endif

enum exit_status {
	EXIT_OK = 0,
	EXIT_BAD_INPUT = 1,
	EXIT_USAGE = 2,
	EXIT_RESOURCE = 3
};

/* Long options without a short form. */
enum {
	OPTION_EPOCH_UNIT = 256,
	OPTION_HLL_BITS,
	OPTION_NA,
	OPTION_NO_QUOTES,
	OPTION_NULL,
	OPTION_STRICT,
	OPTION_YEAR
};

/*
 * What the command line asks for: the pipeline's configuration, and what the specs
 * take from the options (the default window, -m and --hll-bits).
 */
struct settings {
	struct pipeline_config config;
	struct window_size default_window;	/* -w */
	bool have_default_window;
	bool have_output_delimiter;		/* -o was given */
	bool have_null, have_na;		/* --null, --na were given */
	bool quiet;				/* -q */
	const char *step_text;			/* -s's argument */
	const char *window_text;		/* -w's argument */
	uint64_t min_count;			/* -m */
	uint64_t hll_bits;			/* --hll-bits */
	struct pipeline_input *inputs;		/* the FILE arguments, or standard input */
	size_t input_count;
	bool named_inputs;			/* FILE arguments were given: messages name
						   the input */
};

static const struct option long_options[] = {
	{ "append", no_argument, NULL, 'a' },
	{ "csv", no_argument, NULL, 'c' },
	{ "skip-comments", no_argument, NULL, 'C' },
	{ "delimiter", required_argument, NULL, 'd' },
	{ "epoch-unit", required_argument, NULL, OPTION_EPOCH_UNIT },
	{ "group-by", required_argument, NULL, 'g' },
	{ "header", no_argument, NULL, 'H' },
	{ "hll-bits", required_argument, NULL, OPTION_HLL_BITS },
	{ "help", no_argument, NULL, 'h' },
	{ "min-count", required_argument, NULL, 'm' },
	{ "na", required_argument, NULL, OPTION_NA },
	{ "no-quotes", no_argument, NULL, OPTION_NO_QUOTES },
	{ "null", required_argument, NULL, OPTION_NULL },
	{ "output-delimiter", required_argument, NULL, 'o' },
	{ "precision", required_argument, NULL, 'p' },
	{ "quiet", no_argument, NULL, 'q' },
	{ "step", required_argument, NULL, 's' },
	{ "strict", no_argument, NULL, OPTION_STRICT },
	{ "time", required_argument, NULL, 't' },
	{ "version", no_argument, NULL, 'V' },
	{ "window", required_argument, NULL, 'w' },
	{ "year", required_argument, NULL, OPTION_YEAR },
	{ NULL, 0, NULL, 0 }
};

static void
usage(FILE *stream)
{
	fputs("usage: swag [OPTION]... AGG[:COLUMN][@WINDOW]... [FILE]...\n", stream);
}

static void
help(void)
{
	usage(stdout);
	fputs(
"Read numbers from each FILE in turn (gzip-compressed or not; - or none:\n"
"standard input) and write, for every input record, each aggregate over a\n"
"sliding window of the last records; or with -t and -s 1m, one record per\n"
"minute.\n"
"\n"
"Aggregates, in any case: sum, avg (mean), count, min, max, var, stddev,\n"
"median, pN (percentile N, e.g. p99 or p99.9), mode, distinct, first, last,\n"
"delta (last - first), rate (a counter's increase per second; needs -t), ewma\n"
"(exponentially weighted: a row window is its span, a duration its half-life).\n"
"Any other argument is a FILE (./avg for a file called avg; a missing one\n"
"named close to an aggregate is a usage error with a suggestion).\n"
"  COLUMN  field number from 1 (default 1), from the end from -1 (the last),\n"
"          or a header name with -H\n"
"  WINDOW  this aggregate's window: rows (100), with -t a duration\n"
"          (250ms, 30s, 1.5m, 5min, 1h30m, 1d, 1w; units w d h m s ms us ns,\n"
"          also min and sec), or all (every record so far); default: -w\n"
"\n"
"Options:\n"
"  -w, --window=SIZE            window for every aggregate without @WINDOW\n"
"  -t, --time=COLUMN            the column of each record's timestamp: an\n"
"                               epoch number, ISO 8601 (a zone may follow in\n"
"                               its own field), 2026/11/30 12:00:01, syslog\n"
"                               (Nov 30 12:00:01), Common Log Format or RFC 7231\n"
"                               (in one CSV field)\n"
"      --epoch-unit=U           s, ms, us or ns for epoch timestamps (default:\n"
"                               told by the first timestamp's size)\n"
"      --year=YYYY              the year of the first syslog date, later ones\n"
"                               rolling over (default: the latest year that has\n"
"                               it and puts it at most a day ahead of the clock)\n"
"  -g, --group-by=COLUMN        separate windows for every value of COLUMN\n"
"  -c, --csv                    input is CSV (same as -d ,)\n"
"  -d, --delimiter=C            input is delimited by C, with CSV quoting;\n"
"                               \\t or tab for TAB (default: runs of blanks)\n"
"      --no-quotes              a quote is an ordinary character: split every\n"
"                               line at every delimiter (TSV as databases and\n"
"                               jq @tsv write it); no output field is quoted\n"
"  -H, --header                 the first record names the columns; the output\n"
"                               starts with a header naming each result\n"
"  -a, --append                 write the input record, then the results\n"
"  -o, --output-delimiter=C     between output fields (default TAB, or the\n"
"                               input delimiter; \\t or tab)\n"
"  -C, --skip-comments          skip lines that begin with # after blanks\n"
"  -s, --step=N                 write only every Nth record's results\n"
"                               (per key with -g); nothing for an incomplete\n"
"                               last step\n"
"  -s, --step=DURATION          with -t: one record per bucket of DURATION\n"
"                               (1m, 1h, 1d: aligned to UTC, weeks to Monday):\n"
"                               its start, the -g key, the results over the\n"
"                               bucket's records (-w defaults to DURATION;\n"
"                               -w 5m -s 1m: the last 5 minutes, every minute)\n"
"  -m, --min-count=N            null until a window holds N values (default 1)\n"
"  -p, --precision=N            N digits after the point (0 to 30)\n"
"      --null=TEXT              what a null result prints as (default - where\n"
"                               blanks separate the output but for TSV's TAB\n"
"                               output, else empty)\n"
"      --na=LIST                comma-separated field texts meaning missing\n"
"                               (default -; the empty field always is)\n"
"      --strict                 stop at the first bad input (exit 1)\n"
"      --hll-bits=P             distinct's HyperLogLog precision, 4 to 18\n"
"                               (default 12: standard error 1.6%)\n"
"  -q, --quiet                  no warnings on standard error\n"
"  -h, --help                   show this help and exit\n"
"  -V, --version                show the version and exit\n"
"\n"
"Examples: swag -t 1 -s 1m p99:2 count:2 latency.log      (per minute)\n"
"          tail -f access.log | swag -t 4 -s 1m count:9 p99:10\n"
"          swag -w 1000 avg:-1 p99:-1 access.log.2.gz access.log.1 access.log\n"
"          seq 1 10 | swag -w 4 sum\n"
"          swag -c -H -w 500 avg:latency p99:latency distinct:client requests.csv\n"
"          swag -c -H -t ts -g host -w 5m p99:latency requests.csv\n"
"Exit status: 0 success, 1 bad input, 2 usage error, 3 I/O or resource error.\n"
"See swag(1) for the details.\n", stdout);
}

/* Prints "swag: MESSAGE" and a line end on standard error. */
static void
vwarn_message(const char *format, va_list args)
{
	fputs("swag: ", stderr);
	vfprintf(stderr, format, args);
	fputc('\n', stderr);
}

static void
warn_message(const char *format, ...)
{
	va_list args;

	va_start(args, format);
	vwarn_message(format, args);
	va_end(args);
}

/* The texts shown_n keeps at once (a message shows at most three), and the bytes of
   each it shows: a path's longest, PATH_MAX. */
#define SHOWN_KEPT 4
#define SHOWN_MAX 4096

/*
 * Text from the command line, or a file's name, as a message shows it: a backslash
 * doubled and a control byte as \xHH, as a field is shown (swag(1), BAD INPUT), so
 * that a name holding a line end or a terminal's escape sequence stays one plain
 * line, and cut with "..." past SHOWN_MAX bytes.  Returns a static buffer that lasts
 * until SHOWN_KEPT more have been made; no allocation, so that a message never
 * depends on memory.
 */
static const char *
shown_n(const char *text, size_t len)
{
	static char kept[SHOWN_KEPT][PIPELINE_ESCAPED(SHOWN_MAX) + sizeof("...")];
	static size_t next;
	char *s = kept[next];
	size_t n = pipeline_cut(text, len, SHOWN_MAX);

	next = (next + 1) % SHOWN_KEPT;
	n = pipeline_escape(s, text, n);
	if (len > SHOWN_MAX) {
		memcpy(s + n, "...", 3);
		n += 3;
	}
	s[n] = '\0';
	return s;
}

static const char *
shown(const char *text)
{
	return shown_n(text, strlen(text));
}

/* Reports a usage error with a hint to --help and exits with status 2. */
static void __attribute__((noreturn))
usage_error(const char *format, ...)
{
	va_list args;

	va_start(args, format);
	vwarn_message(format, args);
	va_end(args);
	fputs("Try 'swag --help' for more information.\n", stderr);
	exit(EXIT_USAGE);
}

/*
 * An option's argument without the blanks around it, which a count ignores as a
 * duration does (swag(1), -w): its start, and its length in *len.
 */
static const char *
option_trimmed(const char *text, size_t *len)
{
	const char *end = text + strlen(text);

	trim_blanks(&text, &end);
	*len = (size_t)(end - text);
	return text;
}

/*
 * Parses -s, -m, -p and the like: an integer from min (0 or 1) to max, or a usage error
 * that states that range.
 */
static uint64_t
option_count(const char *option, const char *text, uint64_t min, uint64_t max)
{
	size_t len;
	const char *digits = option_trimmed(text, &len);
	uint64_t value;

	/* 0 in any number of digits (00), as the other counts take leading zeros. */
	if (min == 0 && len > 0 && strspn(digits, "0") >= len)
		return 0;
	if (parse_count(digits, len, max, &value) != 0 || value < min)
		usage_error("invalid %s '%s': not an integer from %llu to %llu", option,
		    shown(text), (unsigned long long)min, (unsigned long long)max);
	return value;
}

/*
 * Parses -s's argument: a record count, or a duration (a bucket); a usage error
 * otherwise.
 */
static void
option_step(const char *text, struct pipeline_config *config)
{
	size_t len;
	const char *digits = option_trimmed(text, &len);
	uint64_t step;

	config->bucket = 0;
	config->step = 1;
	if (parse_duration(text, strlen(text), &config->bucket))
		return;
	if (parse_count(digits, len, UINT64_MAX / 2, &step) != 0)
		usage_error("invalid step '%s': a record count from 1 to %llu, or with -t a "
		    "duration such as 1m (under 2^63 ns, 292 years)", shown(text),
		    (unsigned long long)(UINT64_MAX / 2));
	config->step = step;
}

/*
 * Parses -d's and -o's argument: one byte but the quote, CR or LF, which CSV gives
 * meanings of their own, or \t or tab for a TAB; a usage error names option.
 */
static char
option_delimiter(const char *option, const char *text)
{
	if (strcmp(text, "\\t") == 0 || strcmp(text, "tab") == 0)
		return '\t';
	if (strlen(text) != 1 || text[0] == '\n' || text[0] == '\r' || text[0] == '"')
		usage_error("invalid %s '%s': one byte but the quote, CR or LF, or \\t or tab",
		    option, shown(text));
	return text[0];
}

/*
 * Parses the argument of -t or -g: a field number or, with -H, a header name;
 * a usage error otherwise.
 */
static struct column_ref
option_column(const char *option, const char *text)
{
	struct column_ref column;

	if (column_parse(text, strlen(text), &column) < 0)
		usage_error("invalid column '%s' for %s: a field number from 1, from the end "
		    "from -1, or a name with -H", shown(text), option);
	return column;
}

/* Parses -w's argument: a row count, a duration or all; a usage error otherwise. */
static struct window_size
option_window(const char *text)
{
	struct window_size window;

	if (window_parse(text, strlen(text), &window) != 0)
		usage_error("invalid window '%s': a row count from 1 to %llu, a "
		    "duration such as 30s (under 2^63 ns, 292 years), or all", shown(text),
		    (unsigned long long)WINDOW_ROWS_MAX);
	return window;
}

/* Parses --epoch-unit's argument: s, ms, us or ns; a usage error otherwise. */
static enum epoch_unit
option_epoch_unit(const char *text)
{
	if (strcmp(text, "s") == 0)
		return EPOCH_SECONDS;
	if (strcmp(text, "ms") == 0)
		return EPOCH_MILLISECONDS;
	if (strcmp(text, "us") == 0)
		return EPOCH_MICROSECONDS;
	if (strcmp(text, "ns") == 0)
		return EPOCH_NANOSECONDS;
	usage_error("invalid epoch unit '%s': s, ms, us or ns", shown(text));
}

/*
 * Splits --na's comma-separated list into its texts, as fields pointing into text
 * (an argv string, which lives as long as the process).  Blanks around an item are
 * left out, as they are around the fields it is compared with (swag(1), --na): " NA"
 * in --na=-,\ NA would otherwise match nothing.  Empty items say nothing: the empty
 * field is always missing.  Returns an array the caller frees.
 */
static struct field *
option_na_list(const char *text, size_t *count)
{
	size_t items = 1, n = 0;
	struct field *fields;

	for (const char *s = text; *s != '\0'; s++)
		items += *s == ',';
	if ((fields = mem_realloc(NULL, items * sizeof(*fields))) == NULL) {
		warn_message("out of memory");
		exit(EXIT_RESOURCE);
	}
	for (const char *s = text;; s++) {
		const char *start = s, *end;

		s += strcspn(s, ",");
		end = s;
		trim_blanks(&start, &end);
		if (end > start) {
			fields[n].text = start;
			fields[n++].len = (size_t)(end - start);
		}
		if (*s == '\0')
			break;
	}
	*count = n;
	return fields;
}

/*
 * Ends the run after --help or --version: their text must have reached standard
 * output, or it is a write error like any other.
 */
static int
close_stdout(void)
{
	if (fflush(stdout) == 0 && !ferror(stdout))
		return EXIT_OK;
	warn_message("write error: %s", strerror(errno != 0 ? errno : EIO));
	return EXIT_RESOURCE;
}

/*
 * Fills *settings from the options of the command line, leaving optind at the first
 * aggregate spec.  Each option's argument is checked as it comes, a usage error
 * stopping swag at the first bad one; --help and --version end it there.
 */
static void
parse_options(int argc, char *argv[], struct settings *settings)
{
	struct pipeline_config *config = &settings->config;
	int option;

	*settings = (struct settings){
		.config = {
			.output_delimiter = '\t',
			.precision = -1,
			.null_text = "",
			.step = 1,
		},
		.min_count = 1,
		.hll_bits = 12,
	};
	while ((option = getopt_long(argc, argv, "acCd:g:Hho:m:p:qs:t:Vw:", long_options,
	    NULL)) != -1) {
		switch (option) {
		case 'a':
			config->append = true;
			break;
		case 'c':
			config->input_delimiter = ',';
			break;
		case 'C':
			config->skip_comments = true;
			break;
		case 'd':
			config->input_delimiter = option_delimiter("delimiter", optarg);
			break;
		case 'g':
			config->has_group = true;
			config->group_column = option_column("-g", optarg);
			break;
		case 'H':
			config->header = true;
			break;
		case 'h':
			help();
			exit(close_stdout());
		case 'm':
			settings->min_count = option_count("minimum count", optarg, 1,
			    UINT64_MAX / 2);
			break;
		case 'o':
			config->output_delimiter = option_delimiter("output delimiter", optarg);
			settings->have_output_delimiter = true;
			break;
		case 'p':
			config->precision = (int)option_count("precision", optarg, 0,
			    NUMPRINT_PRECISION_MAX);
			break;
		case 'q':
			settings->quiet = true;
			break;
		case 's':
			option_step(optarg, config);
			settings->step_text = optarg;
			break;
		case 't':
			config->has_time = true;
			config->time_column = option_column("-t", optarg);
			break;
		case 'V':
			puts("swag " SWAG_VERSION);
			exit(close_stdout());
		case 'w':
			settings->default_window = option_window(optarg);
			settings->have_default_window = true;
			settings->window_text = optarg;
			break;
		case OPTION_EPOCH_UNIT:
			config->epoch_unit = option_epoch_unit(optarg);
			config->epoch_unit_given = true;
			break;
		case OPTION_YEAR:
			config->year = (int)option_count("year", optarg, 1678, 2261);
			break;
		case OPTION_HLL_BITS:
			settings->hll_bits = option_count("HyperLogLog precision", optarg,
			    4, 18);
			break;
		case OPTION_NA:
			mem_free((void *)config->na_texts);
			config->na_texts = option_na_list(optarg, &config->na_count);
			settings->have_na = true;
			break;
		case OPTION_NULL:
			config->null_text = optarg;
			settings->have_null = true;
			break;
		case OPTION_NO_QUOTES:
			config->no_quotes = true;
			break;
		case OPTION_STRICT:
			config->strict = true;
			break;
		default:
			/* getopt_long has said what is wrong. */
			fputs("Try 'swag --help' for more information.\n", stderr);
			exit(EXIT_USAGE);
		}
	}
	if (config->bucket > 0) {
		if (!config->has_time)
			usage_error("-s %s is a duration: buckets need -t (--time)",
			    shown(settings->step_text));
		if (config->append)
			usage_error("-a (--append) cannot be used with -s DURATION: a bucket has "
			    "no one input record to write back");
		/* -w defaults to the bucket: "-s 1m p99" is p99 per minute. */
		if (!settings->have_default_window) {
			settings->default_window = (struct window_size){ .nanos = config->bucket };
			settings->have_default_window = true;
		}
	}
	if (!settings->have_output_delimiter && config->input_delimiter != '\0')
		config->output_delimiter = config->input_delimiter;
	/*
	 * Defaults (swag(1), OUTPUT and BAD INPUT): "-" is a missing field, as logs write
	 * one; and where fields are separated by blanks, which awk and swag itself read as
	 * runs, a null prints as "-", so that the columns after it stay in place; but not
	 * in TSV, TAB-separated output of TAB-separated input, whose readers keep empty
	 * fields apart: there it stays empty.  TSV written out with spaces is read by runs.
	 */
	if (!settings->have_na)
		config->na_texts = option_na_list("-", &config->na_count);
	config->blank_output = config->output_delimiter == ' ' ||
	    (config->output_delimiter == '\t' && config->input_delimiter != '\t');
	if (!settings->have_null && config->blank_output)
		config->null_text = "-";
	config->null_len = strlen(config->null_text);
	/*
	 * Where output is not quoted (blank-separated input written with blanks, or
	 * --no-quotes: pipeline.c's quote_output), a null text holding a line end or the
	 * output delimiter would cut its record: refused (swag(1), --null).
	 */
	if ((config->no_quotes || (config->input_delimiter == '\0' && config->blank_output)) &&
	    strpbrk(config->null_text, "\n\r") != NULL)
		usage_error("--null text '%s' holds a line end, which unquoted output cannot "
		    "carry", shown(config->null_text));
	if ((config->no_quotes || (config->input_delimiter == '\0' && config->blank_output)) &&
	    strchr(config->null_text, config->output_delimiter) != NULL &&
	    config->output_delimiter != '\0')
		usage_error("--null text '%s' holds the output delimiter, which unquoted "
		    "output cannot carry", shown(config->null_text));
	/* Space-separated output is read at runs of blanks: a TAB cuts it as a space does. */
	if ((config->no_quotes || (config->input_delimiter == '\0' && config->blank_output)) &&
	    config->output_delimiter == ' ' && strchr(config->null_text, '\t') != NULL)
		usage_error("--null text '%s' holds a TAB, which unquoted output separated by "
		    "spaces cannot carry", shown(config->null_text));
}

/* Fills the per-run seed of hash tables: SWAG_HASH_SEED when set (for tests), else random. */
static uint64_t
hash_seed(void)
{
	const char *text = getenv("SWAG_HASH_SEED");
	uint64_t seed = 0;

	if (text != NULL && *text != '\0')
		return strtoull(text, NULL, 0);
	if (getrandom(&seed, sizeof(seed), GRND_NONBLOCK) != (ssize_t)sizeof(seed)) {
		struct timespec now;

		/* No entropy yet (early boot): the clock and the pid still differ per run. */
		clock_gettime(CLOCK_REALTIME, &now);
		seed = (uint64_t)now.tv_nsec * 0x9e3779b97f4a7c15u ^ (uint64_t)now.tv_sec ^
		    (uint64_t)getpid() << 32;
	}
	return seed;
}

/*
 * The aggregates' names, from agg.c's table, ", "-separated, and the percentiles,
 * for the messages about an unknown aggregate.  Returns a static buffer.
 */
static const char *
aggregate_list(void)
{
	static char list[512];
	size_t n = 0;
	const char *name;

	for (size_t i = 0; (name = agg_name(i)) != NULL; i++)
		if (n + strlen(name) + 2 < sizeof(list))
			n += (size_t)snprintf(list + n, sizeof(list) - n, "%s, ", name);
	snprintf(list + n, sizeof(list) - n, "pN (p0 to p100)");
	return list;
}

/*
 * Checks a FILE argument that is no aggregate before it is opened: one that does not
 * exist and whose name (before ':' and '@') is close to an aggregate's is a misspelt
 * aggregate, a usage error with the nearest name (swag(1), FILES).
 */
static void
check_misspelt(const char *arg)
{
	struct agg_spec spec;
	size_t len;
	const char *nearest;

	/* The name as an aggregate's is cut: before the first ':' and the last '@'. */
	(void)spec_parse(arg, &spec);
	len = spec.name_len;

	if (strcmp(arg, "-") == 0 || access(arg, F_OK) == 0 || errno != ENOENT ||
	    (nearest = agg_suggest(arg, len)) == NULL)
		return;
	usage_error("unknown aggregate '%s' (and no file '%s'): did you mean '%s'?\n"
	    "swag: the aggregates are %s", shown_n(arg, len), shown(arg), nearest,
	    aggregate_list());
}

/*
 * Sorts the arguments after the options, argv[0..argc), into aggregate specs and FILE
 * arguments (swag(1), DESCRIPTION: an argument is an aggregate when its name has an
 * aggregate's shape) and checks the specs against the options, a usage error stopping
 * swag at the first that is wrong; then that -t and -g give field numbers unless -H
 * names the columns.  Completes settings->config with the specs, which the caller
 * frees, and the FILE arguments in settings->inputs, to be opened (open_inputs).
 * Returns 0, or -1 when memory for them could not be had.
 */
static int
check_specs(int argc, char *argv[], struct settings *settings)
{
	struct pipeline_config *config = &settings->config;
	struct agg_spec *specs;
	size_t spec_count = 0, files = 0;

	if (argc == 0)
		usage_error("no aggregate given");
	/*
	 * Kept in config at once: a usage error exits with the list reachable, not lost
	 * (valgrind's leak check, in check-valgrind, reports a list only a register held).
	 */
	if ((specs = mem_realloc(NULL, (size_t)argc * sizeof(*specs))) == NULL)
		return -1;
	config->specs = specs;
	if ((settings->inputs = mem_realloc(NULL, (size_t)argc * sizeof(*settings->inputs))) ==
	    NULL) {
		mem_free(specs);
		config->specs = NULL;
		return -1;
	}
	for (int i = 0; i < argc; i++) {
		struct agg_spec *spec = &specs[spec_count];

		switch (spec_parse(argv[i], spec)) {
		case SPEC_OK:
			break;
		case SPEC_UNKNOWN_AGGREGATE:
			/* A FILE argument. */
			settings->inputs[files].name = argv[i];
			settings->inputs[files++].fd = -1;
			continue;
		case SPEC_BAD_PERCENTILE:
			usage_error("unknown aggregate in '%s': a percentile is p and digits with "
			    "at most one point between them, from p0 to p100 (p99, p99.9)",
			    shown(argv[i]));
		case SPEC_BAD_COLUMN:
			usage_error("invalid column in '%s': a field number from 1, from the end "
			    "from -1, or a name with -H", shown(argv[i]));
		case SPEC_BAD_WINDOW:
			usage_error("invalid window in '%s': a row count from 1 to %llu, "
			    "a duration such as 30s (under 2^63 ns, 292 years), or all",
			    shown(argv[i]), (unsigned long long)WINDOW_ROWS_MAX);
		}
		spec_count++;
		if (spec->column.digits && !config->header)
			usage_error("invalid column in '%s': a field number from 1, from the end "
			    "from -1, or a name with -H", shown(argv[i]));
		if (spec->column.name != NULL && !config->header)
			usage_error("column '%s' in '%s' is a name: names need -H (--header)",
			    shown_n(spec->column.name, spec->column.name_len), shown(argv[i]));
		if (!spec->has_window) {
			if (!settings->have_default_window)
				usage_error("no window for '%s': give -w or %s@WINDOW",
				    shown(argv[i]), shown(argv[i]));
			spec->window = settings->default_window;
		}
		if (spec->window.nanos > 0 && !config->has_time)
			usage_error("window of '%s' is a duration: durations need -t (--time)",
			    shown(argv[i]));
		if (spec->kind == &agg_rate && !config->has_time)
			usage_error("'%s' is a rate per second: rate needs -t (--time)",
			    shown(argv[i]));
		if (spec->kind == &agg_ewma && spec->window.rows == WINDOW_ROWS_ALL)
			usage_error("'%s': ewma needs a span (rows) or a half-life (a duration), "
			    "not all", shown(argv[i]));
		spec->params.min_count = settings->min_count;
		spec->params.hll_bits = (unsigned)settings->hll_bits;
		spec->params.hash_seed = config->hash_seed;
	}
	for (size_t i = 0; i < files; i++)
		check_misspelt(settings->inputs[i].name);
	if (spec_count == 0)
		usage_error("no aggregate given ('%s' is taken as a file); the aggregates are %s",
		    shown(settings->inputs[0].name), aggregate_list());
	/* Where every aggregate has a window of its own, -w is still checked. */
	if (settings->window_text != NULL && settings->default_window.nanos > 0 &&
	    !config->has_time)
		usage_error("-w %s is a duration: durations need -t (--time)",
		    shown(settings->window_text));
	for (int i = 0; i < 2 && !config->header; i++) {
		const struct column_ref *c = i == 0 ? &config->time_column :
		    &config->group_column;
		const char *option = i == 0 ? "-t" : "-g";

		if (c->digits)
			usage_error("invalid column '%s' for %s: a field number from 1, from the "
			    "end from -1, or a name with -H", shown(c->name), option);
		if (c->name != NULL)
			usage_error("column '%s' of %s is a name: names need -H (--header)",
			    shown(c->name), option);
	}
	config->spec_count = spec_count;
	settings->input_count = files;
	return 0;
}

/*
 * True when fd is a directory, which open(2) takes but no read(2) can: it is refused
 * with the files that cannot be opened, before anything is written (swag(1), FILES).
 */
static bool
is_directory(int fd)
{
	struct stat st;

	return fstat(fd, &st) == 0 && S_ISDIR(st.st_mode);
}

/*
 * True when fd is the regular file that standard output writes to and swag would
 * read its own results back from it: swag -w 10 avg log >> log would do so until
 * the disk is full.  The first input may be that file when it has nothing left to
 * read (> log truncated it: cat(1)'s test), as nothing is written before it ends;
 * a later one may not, whatever its size, since the results of the inputs before
 * it go into it first.  A descriptor that is standard output's own (standard
 * output closed, and the file opened in its place) is no such file.
 */
static bool
is_output(int fd, bool first)
{
	struct stat in, out;
	off_t at;

	if (fd == STDOUT_FILENO || fstat(fd, &in) != 0 ||
	    fstat(STDOUT_FILENO, &out) != 0 || !S_ISREG(in.st_mode) ||
	    !S_ISREG(out.st_mode) || in.st_dev != out.st_dev || in.st_ino != out.st_ino)
		return false;
	if (!first)
		return true;
	at = lseek(fd, 0, SEEK_CUR);
	return at >= 0 && at < in.st_size;
}

/*
 * Refuses an input that is a directory or the output (swag(1), FILES), exit status
 * 3; first says whether it is the first input read.
 */
static void
check_input(const struct pipeline_input *input, bool first)
{
	if (is_directory(input->fd)) {
		warn_message("%s: %s", shown(input->name), strerror(EISDIR));
		exit(EXIT_RESOURCE);
	}
	if (is_output(input->fd, first)) {
		warn_message("%s: input file is output file", shown(input->name));
		exit(EXIT_RESOURCE);
	}
}

/*
 * Opens the file name for reading, as open(2) does, but without waiting for a FIFO's
 * writer: opening a FIFO blocks until one comes, and swag opens every file at the
 * start, so that FIFOs whose writers come one after the other (cat a > fifo1; cat b >
 * fifo2) would wait for each other.  A FIFO is opened non-blocking and stays so, which
 * the reader waits on as on any input (on Linux, poll(2) reports a FIFO's end only once
 * a writer has come and gone, so that one nobody has written yet is waited for).  Any
 * other file is opened as it always was: O_NONBLOCK would change what its open does (a
 * file under another's lease, a serial line, an exclusive device would fail at once
 * instead of waiting), and a file that stat(2) took for a FIFO but is none by the time
 * it is open is made blocking again.
 */
static int
open_input(const char *name)
{
	struct stat st;
	int fd, flags, saved;
	bool fifo = stat(name, &st) == 0 && S_ISFIFO(st.st_mode);

	if ((fd = open(name, O_RDONLY | O_CLOEXEC | (fifo ? O_NONBLOCK : 0))) < 0)
		return -1;
	if (!fifo || (fstat(fd, &st) == 0 && S_ISFIFO(st.st_mode)))
		return fd;
	if ((flags = fcntl(fd, F_GETFL)) < 0 || fcntl(fd, F_SETFL, flags & ~O_NONBLOCK) < 0) {
		saved = errno;
		(void)close(fd);
		errno = saved;
		return -1;
	}
	return fd;
}

/*
 * Opens the FILE arguments, all of them before the first is read: a missing one
 * stops swag before it writes anything (a cron job gets the whole answer or an error,
 * never a day's results without one of its files), and a log rotated while swag runs
 * is still read whole through its descriptor.  "-" is standard input, and no FILE
 * argument (or "-" alone) means standard input alone, named by no message.  A file
 * that cannot be opened, a directory, or the output file is an error naming it,
 * exit status 3.
 */
static void
open_inputs(struct settings *settings)
{
	static struct pipeline_input standard_input = { NULL, STDIN_FILENO };

	/* "-" alone is standard input alone, as no FILE argument is. */
	if (settings->input_count == 0 || (settings->input_count == 1 &&
	    strcmp(settings->inputs[0].name, "-") == 0)) {
		mem_free(settings->inputs);
		settings->inputs = &standard_input;
		settings->input_count = 1;
		/* Not check_input: a directory there is a read error, as any read finds. */
		if (is_output(STDIN_FILENO, true)) {
			warn_message("standard input: input file is output file");
			exit(EXIT_RESOURCE);
		}
		return;
	}
	settings->named_inputs = true;
	/*
	 * "-" among the files with standard input closed: refused before any file is
	 * opened, as one would take descriptor 0 and be read twice, once for "-".
	 */
	for (size_t i = 0; i < settings->input_count; i++)
		if (strcmp(settings->inputs[i].name, "-") == 0 &&
		    fcntl(STDIN_FILENO, F_GETFD) < 0) {
			warn_message("standard input: %s", strerror(errno));
			exit(EXIT_RESOURCE);
		}
	for (size_t i = 0; i < settings->input_count; i++) {
		struct pipeline_input *input = &settings->inputs[i];

		if (strcmp(input->name, "-") == 0) {
			input->name = "standard input";
			input->fd = STDIN_FILENO;
		} else if ((input->fd = open_input(input->name)) < 0) {
			warn_message("%s: %s", shown(input->name), strerror(errno));
			exit(EXIT_RESOURCE);
		}
		check_input(input, i == 0);
	}
}

/* Closes the FILE arguments and frees their list. */
static void
close_inputs(struct settings *settings)
{
	if (!settings->named_inputs)
		return;
	for (size_t i = 0; i < settings->input_count; i++)
		if (settings->inputs[i].fd != STDIN_FILENO)
			(void)close(settings->inputs[i].fd);
	mem_free(settings->inputs);
}

/*
 * The signal that asked swag to stop (SIGHUP, SIGINT or SIGTERM), or 0.  Its handler
 * only notes it: the pipeline ends at the next record boundary, the records written so
 * far go out whole, and swag then ends by the same signal (end_by_signal).
 */
static volatile sig_atomic_t stop_signal;

static void
on_stop_signal(int signal_number)
{
	stop_signal = signal_number;
}

/*
 * Catches SIGHUP, SIGINT and SIGTERM, except those the parent ignored (nohup, a
 * background job); SA_RESETHAND makes a second one end swag at once, should a write
 * be stuck.  SIGXFSZ is ignored: a write past the file-size limit then fails with
 * EFBIG, and the output stops at the last record within the limit (output.h).
 */
static void
catch_signals(void)
{
	static const int stop_signals[] = { SIGHUP, SIGINT, SIGTERM };

	for (size_t i = 0; i < sizeof(stop_signals) / sizeof(stop_signals[0]); i++) {
		struct sigaction action, old;

		if (sigaction(stop_signals[i], NULL, &old) != 0 || old.sa_handler == SIG_IGN)
			continue;
		memset(&action, 0, sizeof(action));
		action.sa_handler = on_stop_signal;
		sigemptyset(&action.sa_mask);
		/* And no SA_RESTART: a read returns EINTR. */
		action.sa_flags = SA_RESETHAND;
		(void)sigaction(stop_signals[i], &action, NULL);
	}
	(void)signal(SIGXFSZ, SIG_IGN);
}

/* Ends swag by the signal that stopped it, as a shell expects (status 128 + n). */
static int
end_by_signal(int signal_number)
{
	(void)signal(signal_number, SIG_DFL);
	(void)raise(signal_number);
	return 128 + signal_number;	/* not reached */
}

/*
 * Runs the pipeline from the inputs to standard output, SIGHUP, SIGINT and SIGTERM
 * ending it at a record boundary, and flushes what it wrote.  Fills *report and
 * returns what ended the run, a write error when the output could not be finished.
 */
static enum pipeline_status
run(struct settings *settings, struct pipeline_report *report)
{
	static struct output out;
	struct pipeline_config *config = &settings->config;
	enum pipeline_status status;

	config->stop = &stop_signal;
	config->exits = true;
	catch_signals();
	output_init(&out, STDOUT_FILENO);
	status = pipeline_run(config, settings->inputs, settings->input_count, &out, report);
	if (output_finish(&out) != 0 && status != PIPELINE_WRITE_ERROR) {
		status = PIPELINE_WRITE_ERROR;
		report->error_number = out.error;
	}
	return status;
}

/* The name --epoch-unit gives a unit. */
static const char *
epoch_unit_name(enum epoch_unit unit)
{
	static const char *const names[] = {
		[EPOCH_SECONDS] = "s", [EPOCH_MILLISECONDS] = "ms",
		[EPOCH_MICROSECONDS] = "us", [EPOCH_NANOSECONDS] = "ns",
	};

	return names[unit];
}

/*
 * Where a message is: "NAME: " for an input named by a FILE argument, else nothing
 * (standard input alone).  Returns a static buffer, valid until the next call.
 */
static const char *
input_prefix(const char *name)
{
	static char prefix[PIPELINE_ESCAPED(SHOWN_MAX) + sizeof("...: ")];

	if (name == NULL)
		return "";
	snprintf(prefix, sizeof(prefix), "%s: ", shown(name));
	return prefix;
}

/*
 * A column as the report gives it: its number, or one counted from the end as a
 * negative number (pipeline.c's report_column).  Returns a static buffer.
 */
static const char *
column_text(size_t column)
{
	static char text[24];

	if (column > SIZE_MAX / 2)
		snprintf(text, sizeof(text), "-%zu", (size_t)0 - column);
	else
		snprintf(text, sizeof(text), "%zu", column);
	return text;
}

/* Writes one summary line per kind of bad input seen. */
static void
report_problems(const struct pipeline_report *report)
{
	/* What each kind of problem did, for one and for several. */
	static const struct {
		enum problem_kind kind;
		const char *one, *several;
	} words[] = {
		{ PROBLEM_NOT_NUMBER, "field was not a number", "fields were not numbers" },
		{ PROBLEM_SHORT_RECORD, "record had too few fields",
		    "records had too few fields" },
		{ PROBLEM_BAD_TIMESTAMP,
		    "timestamp could not be read, taken as the newest before",
		    "timestamps could not be read, taken as the newest before" },
		{ PROBLEM_TIME_BACKWARDS,
		    "timestamp went backwards, taken as the newest before",
		    "timestamps went backwards, taken as the newest before" },
	};
	const struct problem *p = &report->problems[PROBLEM_EPOCH_UNIT];
	char unit_source[PIPELINE_ESCAPED(SHOWN_MAX) + sizeof("...: ") + 64];

	for (size_t i = 0; i < sizeof(words) / sizeof(words[0]); i++) {
		const struct problem *q = &report->problems[words[i].kind];

		if (q->count > 0)
			warn_message("%llu %s (first: %sline %llu, column %s)",
			    (unsigned long long)q->count,
			    q->count == 1 ? words[i].one : words[i].several,
			    input_prefix(q->first_input), (unsigned long long)q->first_line,
			    column_text(q->first_column));
	}
	if (p->count == 0)
		return;
	if (report->epoch_unit_line > 0)
		snprintf(unit_source, sizeof(unit_source), "the unit of %sline %llu's",
		    input_prefix(report->epoch_unit_input),
		    (unsigned long long)report->epoch_unit_line);
	else if (report->epoch_unit_forced)
		snprintf(unit_source, sizeof(unit_source), "--epoch-unit");
	else
		snprintf(unit_source, sizeof(unit_source), "the first timestamp being no epoch");
	warn_message("%llu epoch timestamp%s above 1e11 seconds read in %s (%s), "
	    "probably in another unit: see --epoch-unit (first: %sline %llu, column %s)",
	    (unsigned long long)p->count, p->count == 1 ? " was" : "s were",
	    epoch_unit_name(report->epoch_unit), unit_source, input_prefix(p->first_input),
	    (unsigned long long)p->first_line, column_text(p->first_column));
}

/* What follows the message of a first timestamp that cannot be read (swag(1), TIMESTAMPS). */
static const char timestamp_forms[] =
"swag: timestamps are epoch numbers (in s, ms, us or ns as their size says), ISO 8601\n"
"swag:   (2026-11-30T12:00:01Z, 2026-11-30 12:00:01 +0100 CET, 2026/11/30 12:00:01),\n"
"swag:   syslog (Nov 30 12:00:01), Common Log Format ([30/Nov/2026:12:00:01 +0000])\n"
"swag:   and RFC 7231 (Sun, 30 Nov 2026 12:00:01 GMT, in one CSV field)\n"
"swag: check -t (the timestamp's column), -H (a header line), -C (comment lines)\n"
"swag:   --epoch-unit and --year (the year of syslog dates)\n";

/*
 * Words the problem that stopped the run: a --strict one, or (first_timestamp) a record
 * before any timestamp whose timestamp field cannot be read, with the forms swag reads
 * and the options that may be wrong.
 */
static void
report_failure(const struct pipeline_report *r, bool first_timestamp)
{
	const char *before = first_timestamp ? " (and no timestamp came before it)" : "";
	char hint[80] = "";
	char quoted[PIPELINE_ESCAPED(PIPELINE_QUOTE_MAX) + sizeof("...")];
	const char *where, *column;
	enum epoch_unit unit;
	size_t n;

	/* The field is shown with its unprintable bytes escaped, and cut when long. */
	n = pipeline_escape(quoted, r->failed_text, r->failed_text_len);
	if (r->failed_text_cut) {
		memcpy(quoted + n, "...", 3);
		n += 3;
	}
	quoted[n] = '\0';
	if (r->problems[PROBLEM_EPOCH_UNIT].count > 0)
		snprintf(hint, sizeof(hint), " (above 1e11 seconds read in %s: see "
		    "--epoch-unit)", epoch_unit_name(r->epoch_unit));
	else if (!r->failed_text_cut &&
	    timestamp_epoch_unit(r->failed_text, r->failed_text_len, &unit))
		/* Written as an epoch, and yet no timestamp: out of range. */
		snprintf(hint, sizeof(hint), ": outside swag's range, the years 1677 "
		    "to 2262");
	else if (!r->failed_text_cut &&
	    timestamp_date_problem(r->failed_text, r->failed_text_len, hint + 2,
	    sizeof(hint) - 2))
		/* A date that does not exist, or one out of range. */
		memcpy(hint, ": ", 2);
	where = input_prefix(r->failed_input);
	column = column_text(r->failed_column);
	if (r->failed_kind == PROBLEM_NOT_NUMBER)
		warn_message("%sline %llu, column %s: '%s' is not a number", where,
		    (unsigned long long)r->failed_line, column, quoted);
	else if (r->failed_kind == PROBLEM_BAD_TIMESTAMP)
		warn_message("%sline %llu, column %s: '%s' is not a timestamp%s%s", where,
		    (unsigned long long)r->failed_line, column, quoted, hint, before);
	else if (r->failed_kind == PROBLEM_TIME_BACKWARDS)
		warn_message("%sline %llu, column %s: timestamp '%s' goes backwards%s", where,
		    (unsigned long long)r->failed_line, column, quoted, r->failed_after_idle ?
		    " (behind the end of a bucket written while the input was idle)" : "");
	else
		warn_message("%sline %llu, column %s: the record has only %zu field%s%s", where,
		    (unsigned long long)r->failed_line, column, r->failed_field_count,
		    r->failed_field_count == 1 ? "" : "s", before);
	if (first_timestamp)
		fputs(timestamp_forms, stderr);
}

/*
 * Words the status that ended the run on standard error, then, unless quiet, the
 * summary of the bad input seen.  Returns swag's exit status for it.
 */
static int
report_status(enum pipeline_status status, const struct pipeline_report *report, bool quiet)
{
	int exit_status = EXIT_OK;
	const char *where = input_prefix(report->failed_input);

	switch (status) {
	case PIPELINE_OK:
		break;
	case PIPELINE_BAD_INPUT:
	case PIPELINE_NO_TIMESTAMP:
		report_failure(report, status == PIPELINE_NO_TIMESTAMP);
		exit_status = EXIT_BAD_INPUT;
		break;
	case PIPELINE_MALFORMED_CSV:
		warn_message("%sline %llu, column %zu: malformed CSV (a quote inside an unquoted "
		    "field, or text after a closing quote)", where,
		    (unsigned long long)report->failed_line, report->failed_column);
		exit_status = EXIT_BAD_INPUT;
		break;
	case PIPELINE_OPEN_QUOTE:
		warn_message("%sline %llu, column %zu: a quoted field opened here is never "
		    "closed", where, (unsigned long long)report->failed_line,
		    report->failed_column);
		exit_status = EXIT_BAD_INPUT;
		break;
	case PIPELINE_UNKNOWN_COLUMN:
		warn_message("%sunknown column '%s'; the header has: %s", where,
		    shown_n(report->failed_column_name, report->failed_column_name_len),
		    report->header_names != NULL ? report->header_names : "(out of memory)");
		/* A later file's header: the files before it had their problems. */
		if (!quiet)
			report_problems(report);
		fputs("Try 'swag --help' for more information.\n", stderr);
		exit_status = EXIT_USAGE;
		break;
	case PIPELINE_HEADER_MISMATCH:
		warn_message("%sthe header differs from that of %s, which -a writes",
		    where, shown(report->first_input));
		exit_status = EXIT_BAD_INPUT;
		break;
	case PIPELINE_UTF16:
		warn_message("%sinput is UTF-16", where);
		exit_status = EXIT_BAD_INPUT;
		break;
	case PIPELINE_GZIP_TRUNCATED:
		warn_message("%sgzip data ends too soon (a truncated file?)", where);
		exit_status = EXIT_BAD_INPUT;
		break;
	case PIPELINE_GZIP_CORRUPT:
		warn_message("%sgzip data is corrupt", where);
		exit_status = EXIT_BAD_INPUT;
		break;
	case PIPELINE_READ_ERROR:
		warn_message("%sread error: %s", where, strerror(report->error_number));
		exit_status = EXIT_RESOURCE;
		break;
	case PIPELINE_WRITE_ERROR:
		warn_message("write error: %s", strerror(report->error_number));
		exit_status = EXIT_RESOURCE;
		break;
	case PIPELINE_NO_MEMORY:
		warn_message("out of memory");
		exit_status = EXIT_RESOURCE;
		break;
	case PIPELINE_STOPPED:
		break;
	}
	/* Under --strict the message above says all; else each kind of problem is summed up. */
	if (!quiet && status != PIPELINE_BAD_INPUT && status != PIPELINE_NO_TIMESTAMP &&
	    status != PIPELINE_UNKNOWN_COLUMN)
		report_problems(report);
	return exit_status;
}

int
main(int argc, char *argv[])
{
	struct settings settings;
	struct pipeline_report report;
	enum pipeline_status status;
	int exit_status;

	/* Messages name the program swag however it was called; getopt takes argv[0]. */
	argv[0] = "swag";
	/* Numbers are read and written in the C locale: swag never calls setlocale(). */
	parse_options(argc, argv, &settings);
	argc -= optind;
	argv += optind;
	settings.config.hash_seed = hash_seed();
	if (check_specs(argc, argv, &settings) != 0) {
		warn_message("out of memory");
		mem_free((void *)settings.config.na_texts);
		return EXIT_RESOURCE;
	}
	open_inputs(&settings);

	status = run(&settings, &report);
	exit_status = report_status(status, &report, settings.quiet);
#ifdef SWAG_WORK_COUNTERS
	{
		uint64_t line, most = work_most(&line);

		warn_message("work: at most %llu units in one record (line %llu)",
		    (unsigned long long)most, (unsigned long long)line);
	}
#endif
	close_inputs(&settings);
	mem_free(report.header_names);
	mem_free(settings.config.specs);
	mem_free((void *)settings.config.na_texts);
	/*
	 * A signal that came after the last read (as the last record was taken, or in the
	 * last write) stopped nothing, but swag still ends by it (swag(1), SIGNALS AND
	 * LIMITS), whatever else ended the run: a shell loop stops at Ctrl-C.
	 */
	if (stop_signal != 0)
		return end_by_signal(stop_signal);
	return exit_status;
}
