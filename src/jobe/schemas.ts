// zod shapes of the Jobe API, for the OpenAPI document and the tests. Requests are checked by
// run-spec.ts, which answers with Jobe's own texts; these schemas describe the same shapes.
import { z } from 'zod'

const Args = z.array(z.string()).meta({ description: 'Each item is split into words as a shell would (quotes, backslashes), then passed as argv items; no shell runs.' })

export const JobeRunRequest = z
  .object({
    run_spec: z.object({
      language_id: z.string().meta({ description: 'One of GET languages (case-insensitive).' }),
      sourcecode: z.string(),
      sourcefilename: z.string().optional().meta({ description: "The source's file name; the language's default when absent ('prog.java' is ignored)." }),
      input: z.string().optional().meta({ description: 'stdin.' }),
      file_list: z.array(z.tuple([z.string(), z.string()])).optional().meta({ description: '[file id, file name] pairs of files uploaded with PUT files/{id}.' }),
      parameters: z
        .object({
          cputime: z.number().optional().meta({ description: 'CPU seconds (default 5, at most jobe.max_cpu_time_sec); wall clock 2 x cputime.' }),
          memorylimit: z.number().optional().meta({ description: 'MB of address space (Jobe per-language defaults); 0 = the jail memory cap (jobe.max_memory_kb) only.' }),
          numprocs: z.number().optional(),
          streamsize: z.number().optional().meta({ description: 'MB (of 1,024,000 bytes) of stdout and of stderr kept in the reply (default 2); the rest is dropped and the run goes on, as on Jobe.' }),
          disklimit: z.number().optional(),
          compileargs: Args.optional(),
          linkargs: Args.optional(),
          interpreterargs: Args.optional(),
          runargs: Args.optional(),
          main_class: z.string().optional(),
        })
        .optional(),
      debug: z.boolean().optional(),
    }),
  })
  .meta({ id: 'JobeRunRequest' })

export const JobeResult = z
  .object({
    run_id: z.null(),
    outcome: z.number().int().meta({ description: '11 compile error, 12 runtime error, 13 time limit, 15 success, 17 memory limit, 19 illegal system call, 20 internal error, 21 server overload.' }),
    cmpinfo: z.string(),
    stdout: z.string(),
    stderr: z.string(),
  })
  .strict()
  .meta({ id: 'JobeResult' })

export const JobeLanguages = z.array(z.tuple([z.string(), z.string()])).meta({ id: 'JobeLanguages' })
export const JobeFilePut = z.object({ file_contents: z.string().meta({ description: 'base64' }) }).meta({ id: 'JobeFilePut' })
export const JobeError = z.string().meta({ id: 'JobeError', description: "Jobe's message for the refusal." })
