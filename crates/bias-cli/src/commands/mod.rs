//! One module per `bias` command, named after it; a command with subcommands is a folder.

pub mod bench;
pub mod compare;
pub mod controlled;
pub mod data;
pub mod debias;
pub mod embed;
pub mod evaluate;
pub mod finetune;
pub mod generate;
pub mod import;
pub mod measure;
pub mod merge;
pub mod report;
pub mod reproduce;
pub mod robust;
pub mod score;
pub mod stats;
pub mod task;
pub mod task_generate;
pub mod task_tables;
