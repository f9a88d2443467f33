/**
 * Types for the parts of jStat (https://jstat.github.io) the statistics use;
 * the package ships none.
 */
declare module 'jstat' {
  interface JStatStatic {
    normal: {
      /** Quantile of the normal distribution. */
      inv(p: number, mean: number, sd: number): number
      cdf(x: number, mean: number, sd: number): number
    }
    /** Standard deviation; `flag` true gives the sample (n − 1) version. */
    stdev(values: readonly number[], flag?: boolean): number
    mean(values: readonly number[]): number
  }
  const jStat: JStatStatic
  export default jStat
}
