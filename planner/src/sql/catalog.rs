//! The catalog: named tables with Arrow schemas and statistics, named views
//! (their SQL text), and the function registry SQL is planned against.
//!
//! [`Catalog`] implements datafusion-sql's [`ContextProvider`] (the 11
//! methods of datafusion 55.2) so that `SqlToRel` can resolve table names
//! and functions. Functions come from datafusion-functions (scalar: `abs`,
//! `coalesce`, `now`, string and date functions, ...) and
//! datafusion-functions-aggregate (`count`, `sum`, `avg`, `min`, `max`, ...);
//! with an empty registry `SqlToRel` cannot plan even `count(*)` (an
//! aggregate it looks up by name). Window functions are not registered
//! (datafusion-functions-window is not a dependency).

use std::collections::{BTreeMap, HashMap};
use std::sync::{Arc, OnceLock};

use arrow_schema::{DataType, SchemaRef};
use datafusion_common::config::ConfigOptions;
use datafusion_common::{DataFusionError, Result, TableReference};
use datafusion_expr::logical_plan::builder::LogicalTableSource;
use datafusion_expr::planner::{ContextProvider, ExprPlanner};
use datafusion_expr::{AggregateUDF, HigherOrderUDF, ScalarUDF, TableSource, WindowUDF};

use super::blocks::block_marker_udf;
use super::error::SqlError;
use super::time_join::time_join_marker_udf;
use super::wildcard::wildcard_marker_udf;
use crate::table_function::TableFunction;

/// Statistics about a table that the physical planner's cost model reads
/// (docs/hints.md H15). Every field is optional: unknown is a valid answer.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct TableStats {
    /// Number of rows.
    pub row_count: Option<u64>,
    /// Size in bytes of the data as it would be held in memory.
    pub byte_size: Option<u64>,
    /// Columns the rows arrive sorted on (ascending), most significant first.
    pub sorted_on: Vec<String>,
    /// Bytes of each column, in schema order, when known (empty when not):
    /// what lets a size estimate count only the columns a query reads.
    /// Only their proportions matter; `byte_size` stays the table's size.
    pub column_bytes: Vec<u64>,
    /// What is known of each column's values, in schema order (empty when
    /// nothing is): null and distinct counts, minimum and maximum, which
    /// the size estimates read (`choose/estimate.rs`).
    pub columns: Vec<crate::statistics::ColumnStats>,
}

/// One registered table: its schema and statistics.
#[derive(Debug, Clone)]
pub struct CatalogTable {
    /// The table's name as registered (and as SQL must spell it after
    /// identifier folding: unquoted names fold to lower case).
    pub name: String,
    /// The table's Arrow schema.
    pub schema: SchemaRef,
    /// What is known about the table's data.
    pub stats: TableStats,
    /// What the table declares about time and versions (`CREATE TABLE`'s
    /// PRIMARY KEY, WATERMARK and PROCTIME()); empty for other tables.
    pub time: TableTime,
    /// For a table whose rows can be fetched by key (a lookup table,
    /// joined with `FOR SYSTEM_TIME AS OF probe.proc_time`): where they
    /// come from, as EXPLAIN says it (`SQLite file shop.db, table
    /// customers`). `None` for other tables.
    pub lookup: Option<String>,
    /// Why a lookup join over that lookup table stays a lookup whatever
    /// the sizes (it has a cache; its source cannot be read whole), as
    /// EXPLAIN says it; `None`: the planner's default may scan it instead
    /// (docs/lookup.md).
    pub lookup_only: Option<String>,
}

/// What a table declares about time and versions.
///
/// A table with a primary key and a time attribute is *versioned*
/// ([`TableTime::is_versioned`]): each row is a version of its key, valid
/// from its time until the next version of the same key.
///
/// # Examples
/// ```
/// use tenon_planner::sql::{EventTime, TableTime};
///
/// let mut time = TableTime { primary_key: vec!["currency".into()], ..TableTime::default() };
/// assert!(!time.is_versioned(), "a key alone does not order versions");
/// time.event_time = Some(EventTime {
///     column: "update_time".into(),
///     watermark: "update_time - INTERVAL '15' SECOND".into(),
/// });
/// assert!(time.is_versioned());
/// ```
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct TableTime {
    /// PRIMARY KEY columns (folded names, declared order); empty when none.
    pub primary_key: Vec<String>,
    /// The event-time attribute (WATERMARK FOR column) and the watermark
    /// expression text.
    pub event_time: Option<EventTime>,
    /// The PROCTIME() computed column, if declared.
    pub proc_time: Option<String>,
    /// For a change-log table (`'format' = 'debezium-json'`): the name of
    /// its versions relation, every change of the log as a row.
    pub versions: Option<String>,
}

impl TableTime {
    /// Whether the table is versioned: it has a primary key and a time
    /// attribute (an event-time column or a PROCTIME() column).
    pub fn is_versioned(&self) -> bool {
        !self.primary_key.is_empty() && (self.event_time.is_some() || self.proc_time.is_some())
    }

    /// Whether `column` (folded) is one of the table's time attributes:
    /// its event-time column or its PROCTIME() column.
    pub fn is_time_attribute(&self, column: &str) -> bool {
        self.event_time.as_ref().is_some_and(|e| e.column == column)
            || self.proc_time.as_deref() == Some(column)
    }
}

/// The trailing column of a change log's versions relation
/// ([`TableTime::versions`]): `true` for a tombstone (a delete: the key's
/// validity ends at its time; its non-key columns are NULL). Boolean, not
/// null.
pub const DELETED_COLUMN: &str = "__tenon_deleted";

/// A table's event-time attribute: `WATERMARK FOR column AS watermark`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct EventTime {
    /// The event-time column (folded).
    pub column: String,
    /// The watermark expression as written (`t - INTERVAL '15' SECOND`);
    /// in batch it has no effect: every row is on time.
    pub watermark: String,
}

/// A temporal table function (Flink's `createTemporalTableFunction(time,
/// key)`): `name(t)` is the version of `table` valid at time `t`, per key.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct TemporalFunction {
    /// The function's name (folded).
    pub name: String,
    /// The table it reads its versions from.
    pub table: String,
    /// The table's time attribute that orders the versions.
    pub time: String,
    /// The columns that say which rows are versions of one another.
    pub key: Vec<String>,
}

/// A view: a name for a query, planned where it is used as if it were the
/// derived table `(body) AS name`, as its own query block (docs/hints.md H30,
/// H31; see `super::views`).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ViewDef {
    /// The view's name (after identifier folding).
    pub name: String,
    /// The body's SQL text (one query, hint comments included). Hint and
    /// syntax error positions are positions in this text; the front end
    /// keeps the body at its place in the `CREATE VIEW` statement (the
    /// text before it blanked), so they are positions in that statement.
    pub sql: String,
    /// Names for the view's columns (`CREATE VIEW v (a, b) AS ...`); empty
    /// to keep the body's.
    pub columns: Vec<String>,
}

/// Named tables with Arrow schemas, named views, plus the SQL function
/// registry.
///
/// # Examples
/// ```
/// use std::sync::Arc;
/// use arrow_schema::{DataType, Field, Schema};
/// use tenon_planner::sql::Catalog;
///
/// let mut catalog = Catalog::new();
/// catalog.register_table("t", Arc::new(Schema::new(vec![Field::new("id", DataType::Int64, false)])));
/// assert!(catalog.table("t").is_some());
/// let planned = catalog.plan("SELECT count(*) FROM t").unwrap();
/// assert!(planned.blocks[0].joins.is_empty());
/// ```
#[derive(Debug, Clone)]
pub struct Catalog {
    tables: BTreeMap<String, CatalogTable>,
    views: BTreeMap<String, ViewDef>,
    temporal_functions: BTreeMap<String, TemporalFunction>,
    /// Table functions by lower-case name, the built-ins first.
    table_functions: BTreeMap<String, Arc<dyn TableFunction>>,
    options: ConfigOptions,
}

impl Default for Catalog {
    fn default() -> Self {
        Self::new()
    }
}

impl Catalog {
    /// An empty catalog with the default function registry.
    pub fn new() -> Self {
        Catalog {
            tables: BTreeMap::new(),
            views: BTreeMap::new(),
            temporal_functions: BTreeMap::new(),
            table_functions: crate::table_function::built_in()
                .into_iter()
                .map(|f| (f.name().to_lowercase(), f))
                .collect(),
            options: ConfigOptions::default(),
        }
    }

    /// Registers (or replaces) a table function, called from SQL as
    /// `LATERAL TABLE(name(...))` (module [`crate::table_function`]).
    pub fn register_table_function(&mut self, f: Arc<dyn TableFunction>) {
        self.table_functions.insert(f.name().to_lowercase(), f);
    }

    /// The table function called `name` (any case), if registered.
    pub fn table_function(&self, name: &str) -> Option<&Arc<dyn TableFunction>> {
        self.table_functions.get(&name.to_lowercase())
    }

    /// The names of the table functions, sorted.
    pub fn table_function_names(&self) -> Vec<String> {
        self.table_functions.keys().cloned().collect()
    }

    /// Registers (or replaces) a table without statistics.
    pub fn register_table(&mut self, name: impl Into<String>, schema: SchemaRef) {
        self.register_table_with_stats(name, schema, TableStats::default());
    }

    /// Registers (or replaces) a table with statistics.
    pub fn register_table_with_stats(
        &mut self,
        name: impl Into<String>,
        schema: SchemaRef,
        stats: TableStats,
    ) {
        self.register_table_with_time(name, schema, stats, TableTime::default());
    }

    /// Registers (or replaces) a table with statistics and what it declares
    /// about time and versions.
    pub fn register_table_with_time(
        &mut self,
        name: impl Into<String>,
        schema: SchemaRef,
        stats: TableStats,
        time: TableTime,
    ) {
        let name = name.into();
        self.tables.insert(
            name.clone(),
            CatalogTable {
                name,
                schema,
                stats,
                time,
                lookup: None,
                lookup_only: None,
            },
        );
    }

    /// Marks table `name` (registered) as a lookup table whose rows come
    /// from `source` (a description for EXPLAIN); `lookup_only`: why its
    /// lookup joins must stay lookups ([`CatalogTable::lookup_only`]).
    /// `false` when there is no such table.
    pub fn set_lookup(
        &mut self,
        name: &str,
        source: impl Into<String>,
        lookup_only: Option<String>,
    ) -> bool {
        match self.tables.get_mut(name) {
            Some(t) => {
                t.lookup = Some(source.into());
                t.lookup_only = lookup_only;
                true
            }
            None => false,
        }
    }

    /// Sets the row count and column statistics of table `name` (what
    /// `ANALYZE TABLE` found); `false` when there is no such table.
    pub fn set_column_stats(
        &mut self,
        name: &str,
        rows: u64,
        columns: Vec<crate::statistics::ColumnStats>,
    ) -> bool {
        match self.tables.get_mut(name) {
            Some(t) => {
                t.stats.row_count = Some(rows);
                t.stats.columns = columns;
                true
            }
            None => false,
        }
    }

    /// Registers (or replaces) a temporal table function. Nothing is
    /// checked here: the session checks the table and its columns first.
    pub fn register_temporal_function(&mut self, f: TemporalFunction) {
        self.temporal_functions.insert(f.name.clone(), f);
    }

    /// The temporal table function registered under `name`, if any.
    pub fn temporal_function(&self, name: &str) -> Option<&TemporalFunction> {
        self.temporal_functions.get(name)
    }

    /// Removes the temporal table function `name`; returns it if there was
    /// one.
    pub fn drop_temporal_function(&mut self, name: &str) -> Option<TemporalFunction> {
        self.temporal_functions.remove(name)
    }

    /// Names of the temporal table functions, sorted.
    pub fn temporal_function_names(&self) -> Vec<String> {
        self.temporal_functions.keys().cloned().collect()
    }

    /// The table registered under `name` (exact spelling), if any.
    pub fn table(&self, name: &str) -> Option<&CatalogTable> {
        self.tables.get(name)
    }

    /// Names of the registered tables, sorted.
    pub fn table_names(&self) -> Vec<String> {
        self.tables.keys().cloned().collect()
    }

    /// Removes the table `name` (exact spelling); returns it if there was one.
    pub fn drop_table(&mut self, name: &str) -> Option<CatalogTable> {
        self.tables.remove(name)
    }

    /// Registers (or replaces) a view. Nothing is checked here: a view
    /// whose body does not plan fails where it is used (the session plans
    /// the body once before registering it).
    pub fn register_view(&mut self, view: ViewDef) {
        self.views.insert(view.name.clone(), view);
    }

    /// The view registered under `name` (exact spelling), if any.
    pub fn view(&self, name: &str) -> Option<&ViewDef> {
        self.views.get(name)
    }

    /// Removes the view `name`; returns it if there was one.
    pub fn drop_view(&mut self, name: &str) -> Option<ViewDef> {
        self.views.remove(name)
    }

    /// Names of the registered views, sorted.
    pub fn view_names(&self) -> Vec<String> {
        self.views.keys().cloned().collect()
    }

    /// Names of the tables and views, sorted: what a FROM clause can name.
    pub fn relation_names(&self) -> Vec<String> {
        let mut names: Vec<String> = self
            .tables
            .keys()
            .chain(self.views.keys())
            .cloned()
            .collect();
        names.sort();
        names
    }

    /// Plans one SQL query: see [`plan_sql`](super::plan_sql).
    ///
    /// # Errors
    /// As [`plan_sql`](super::plan_sql).
    pub fn plan(&self, sql: &str) -> std::result::Result<super::PlannedQuery, SqlError> {
        super::plan_sql(self, sql)
    }
}

/// The functions SQL can call, built once per process.
struct FunctionRegistry {
    scalar: HashMap<String, Arc<ScalarUDF>>,
    aggregate: HashMap<String, Arc<AggregateUDF>>,
    planners: Vec<Arc<dyn ExprPlanner>>,
}

fn registry() -> &'static FunctionRegistry {
    static REGISTRY: OnceLock<FunctionRegistry> = OnceLock::new();
    REGISTRY.get_or_init(|| {
        let mut scalar = HashMap::new();
        let marker = Arc::new(block_marker_udf());
        scalar.insert(marker.name().to_string(), marker);
        let wildcard = Arc::new(wildcard_marker_udf());
        scalar.insert(wildcard.name().to_string(), wildcard);
        let time_join = Arc::new(time_join_marker_udf());
        scalar.insert(time_join.name().to_string(), time_join);
        let nested = datafusion_functions_nested::all_default_nested_functions();
        // tenon's own after DataFusion's: its `cardinality` counts a
        // multiset's repeats
        let own = crate::expr::collection_fn::scalar_functions();
        // Flink's functions last: a Flink name DataFusion also defines
        // (DATE_FORMAT, TO_TIMESTAMP, ...) means Flink's function.
        let flink = crate::expr::flink::scalar_functions()
            .into_iter()
            .chain(crate::expr::flink::clock_functions());
        for f in datafusion_functions::all_default_functions()
            .into_iter()
            .chain(nested)
            .chain(own)
            .chain(flink)
        {
            for alias in f.aliases() {
                scalar.insert(alias.clone(), Arc::clone(&f));
            }
            scalar.insert(f.name().to_string(), f);
        }
        let mut aggregate = HashMap::new();
        let own = crate::expr::collection_fn::aggregate_functions();
        for f in datafusion_functions_aggregate::all_default_aggregate_functions()
            .into_iter()
            .chain(own)
        {
            for alias in f.aliases() {
                aggregate.insert(alias.to_lowercase(), Arc::clone(&f));
            }
            aggregate.insert(f.name().to_lowercase(), f);
        }
        let planners: Vec<Arc<dyn ExprPlanner>> = vec![
            Arc::new(datafusion_functions::core::planner::CoreFunctionPlanner::default()),
            Arc::new(datafusion_functions_nested::planner::NestedFunctionPlanner),
            Arc::new(datafusion_functions_nested::planner::FieldAccessPlanner),
            Arc::new(datafusion_functions::unicode::planner::UnicodeFunctionPlanner),
            Arc::new(datafusion_functions::datetime::planner::DatetimeFunctionPlanner),
            Arc::new(datafusion_functions_aggregate::planner::AggregateFunctionPlanner),
        ];
        FunctionRegistry {
            scalar,
            aggregate,
            planners,
        }
    })
}

impl ContextProvider for Catalog {
    fn get_table_source(&self, name: TableReference) -> Result<Arc<dyn TableSource>> {
        let found = match &name {
            TableReference::Bare { table } => self.tables.get(table.as_ref()),
            _ => None,
        };
        match found {
            Some(t) => Ok(Arc::new(LogicalTableSource::new(Arc::clone(&t.schema)))),
            None => Err(DataFusionError::External(Box::new(
                SqlError::UnknownTable {
                    name: name.to_string(),
                    known: self.relation_names(),
                },
            ))),
        }
    }

    fn get_expr_planners(&self) -> &[Arc<dyn ExprPlanner>] {
        &registry().planners
    }

    fn get_function_meta(&self, name: &str) -> Option<Arc<ScalarUDF>> {
        registry().scalar.get(name).cloned()
    }

    fn get_higher_order_meta(&self, _name: &str) -> Option<Arc<HigherOrderUDF>> {
        None
    }

    fn get_aggregate_meta(&self, name: &str) -> Option<Arc<AggregateUDF>> {
        registry().aggregate.get(&name.to_lowercase()).cloned()
    }

    fn get_window_meta(&self, _name: &str) -> Option<Arc<WindowUDF>> {
        None
    }

    fn get_variable_type(&self, _variable_names: &[String]) -> Option<DataType> {
        None
    }

    fn options(&self) -> &ConfigOptions {
        &self.options
    }

    fn udf_names(&self) -> Vec<String> {
        registry().scalar.keys().cloned().collect()
    }

    fn higher_order_function_names(&self) -> Vec<String> {
        Vec::new()
    }

    fn udaf_names(&self) -> Vec<String> {
        registry().aggregate.keys().cloned().collect()
    }

    fn udwf_names(&self) -> Vec<String> {
        Vec::new()
    }
}
