/*
 * QuartzRef.java -- Quartz 2.3's own answers for the unit tests' table.
 *
 * Reads cases from standard input, one a line: EXPR|START|COUNT (START in
 * UTC, "2026-01-01T00:00:00Z"; blank lines and lines starting with '#'
 * are skipped), and prints one C initialiser per case for
 * tests/unit/quartz_table.h: the expression, the start and the next
 * COUNT fire times Quartz's CronExpression.getTimeAfter gives in UTC
 * ("none" when it has no more), or REJECT with Quartz's ParseException
 * as a comment.  A computation that does not end within 3 s is printed
 * as HANG (Quartz's 0W and L-30W loop forever), one that throws as
 * THROWS (Quartz accepts "0 0 L * * ?", then fails computing).
 *
 * Not part of make check: "make quartz-ref" runs it (needs a JDK and
 * Debian's libquartz2-java).
 */
import java.io.BufferedReader;
import java.io.InputStreamReader;
import java.text.SimpleDateFormat;
import java.util.Date;
import java.util.TimeZone;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import org.quartz.CronExpression;

public class QuartzRef {
	static String c(String s) {
		return "\"" + s.replace("\\", "\\\\").replace("\"", "\\\"") +
		    "\"";
	}

	public static void main(String[] args) throws Exception {
		BufferedReader in = new BufferedReader(
		    new InputStreamReader(System.in, "UTF-8"));
		SimpleDateFormat f = new SimpleDateFormat(
		    "yyyy-MM-dd'T'HH:mm:ss'Z'");
		f.setTimeZone(TimeZone.getTimeZone("UTC"));
		ExecutorService ex = Executors.newCachedThreadPool(r -> {
			Thread t = new Thread(r);
			t.setDaemon(true);
			return t;
		});
		String line;

		while ((line = in.readLine()) != null) {
			if (line.trim().isEmpty() || line.startsWith("#"))
				continue;
			String[] p = line.split("\\|");
			String expr = p[0], start = p[1];
			int count = Integer.parseInt(p[2].trim());
			CronExpression ce;
			try {
				ce = new CronExpression(expr);
			} catch (Exception e) {
				System.out.println("\t{ " + c(expr) + ", " +
				    c(start) + ", REJECT, { NULL } }, /* " +
				    e.getMessage().replace("*/", "* /") +
				    " */");
				continue;
			}
			ce.setTimeZone(TimeZone.getTimeZone("UTC"));
			StringBuilder b = new StringBuilder();
			Date t = f.parse(start);
			String hang = null;
			for (int i = 0; i < count; i++) {
				final Date from = t;
				Future<Date> fu = ex.submit(() ->
				    ce.getTimeAfter(from));
				try {
					t = fu.get(3, TimeUnit.SECONDS);
				} catch (java.util.concurrent.TimeoutException e) {
					hang = "HANG";
					break;
				} catch (java.util.concurrent.ExecutionException e) {
					hang = "THROWS";	/* parsed, then fails */
					break;
				}
				b.append(i > 0 ? ", " : "");
				if (t == null) {
					b.append("\"none\"");
					break;
				}
				b.append(c(f.format(t)));
			}
			if (hang != null)
				System.out.println("\t{ " + c(expr) + ", " +
				    c(start) + ", " + hang + ", { NULL } }, /* after: " + b +
				    " */");
			else
				System.out.println("\t{ " + c(expr) + ", " +
				    c(start) + ", ACCEPT, { " + b + " } },");
		}
		System.exit(0);
	}
}
