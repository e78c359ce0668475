// msgpackr uses its pure JavaScript decoder when the accelerator module exports nothing
module.exports = null
